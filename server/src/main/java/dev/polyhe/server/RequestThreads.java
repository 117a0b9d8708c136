package dev.polyhe.server;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The JDK server reads a request's headers on its executor's thread, before any handler can tell health from an
 * upload, so a client that never finishes its headers holds a thread until the request timeout. The pool is
 * therefore wide (threads are made only as connections need them and leave when idle) and only then queues: it
 * takes as many stalled clients as {@code max} to delay a health check, and event streams, the one kind of
 * request that holds a thread by design, are capped well below it ({@link StreamLimits}).
 */
final class RequestThreads {
    /** Fewest threads: health, status and a few streams side by side. */
    static final int MIN = 8;

    private RequestThreads() {}

    static ThreadPoolExecutor create(int max) {
        ThreadPoolExecutor pool =
                new ThreadPoolExecutor(max, max, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
                    Thread t = new Thread(r, "polyhe-http");
                    t.setDaemon(true);
                    return t;
                });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    /**
     * The JDK server reads these once, when its first server is made; a value given on the command line
     * ({@code -Dsun.net.httpserver.maxReqTime=...}) wins.
     *
     * @param requestSeconds a request, headers and body, must arrive within it or its connection is closed
     */
    static void timeouts(long requestSeconds, long idleSeconds) {
        setIfAbsent("sun.net.httpserver.maxReqTime", Long.toString(requestSeconds));
        setIfAbsent("sun.net.httpserver.idleInterval", Long.toString(idleSeconds));
    }

    private static void setIfAbsent(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }
}
