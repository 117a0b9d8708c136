package dev.polyhe.core.engine.encrypted;

import dev.polyhe.api.he.Evaluator;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * An evaluator that reports {@code concurrency} and counts the most calls in flight at once among the methods
 * {@code watched} names: how tests see the engine run independent ciphertexts at once.
 */
record WatchedEvaluator(Evaluator evaluator, AtomicInteger mostAtOnce) {
    static WatchedEvaluator of(Evaluator inner, int concurrency, Predicate<String> watched) {
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        Evaluator proxy = (Evaluator) Proxy.newProxyInstance(
                Evaluator.class.getClassLoader(), new Class<?>[] {Evaluator.class}, (self, method, args) -> {
                    if (method.getName().equals("concurrency")) {
                        return concurrency;
                    }
                    boolean counted = watched.test(method.getName());
                    if (counted) {
                        most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                    }
                    try {
                        return method.invoke(inner, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    } finally {
                        if (counted) {
                            inFlight.decrementAndGet();
                        }
                    }
                });
        return new WatchedEvaluator(proxy, most);
    }
}
