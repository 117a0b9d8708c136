package dev.polyhe.core.inference;

import dev.polyhe.api.approx.Approximation;
import dev.polyhe.api.approx.ApproximationSpec;
import dev.polyhe.api.approx.Approximations;
import dev.polyhe.api.approx.Domain;
import dev.polyhe.api.approx.PolynomialApproximator;
import dev.polyhe.api.arith.Arith;
import dev.polyhe.api.arith.TensorOps;
import java.util.Set;
import java.util.function.ObjLongConsumer;

/**
 * The approximations a plugin asks for (an attention kernel's Goldschmidt division and its first guess), whose
 * programs, run on a plaintext tensor engine, count the inputs that fall outside their domain: a polynomial is
 * unguarded there, and the denominators a kernel divides by are computed inside the plugin, where the site's own
 * check ({@link PolynomialNonlinearities}) cannot see them. Plaintext runs only: an encrypted engine is never
 * given this (reading values back would decrypt).
 */
final class DomainCheckedApproximations implements Approximations {
    private final Approximations delegate;
    private final String site;
    private final ObjLongConsumer<String> outside;

    /** @param outside told (site and function, count) whenever a run sees inputs outside a domain */
    DomainCheckedApproximations(Approximations delegate, String site, ObjLongConsumer<String> outside) {
        this.delegate = delegate;
        this.site = site;
        this.outside = outside;
    }

    @Override
    public PolynomialApproximator approximator(String name) {
        PolynomialApproximator a = delegate.approximator(name);
        return new PolynomialApproximator() {
            @Override
            public String name() {
                return a.name();
            }

            @Override
            public String apiVersion() {
                return a.apiVersion();
            }

            @Override
            public String description() {
                return a.description();
            }

            @Override
            public Approximation approximate(ApproximationSpec spec) {
                return new Checked(a.approximate(spec));
            }
        };
    }

    @Override
    public Set<String> names() {
        return delegate.names();
    }

    @Override
    public Approximation approximate(String approximator, ApproximationSpec spec) {
        return new Checked(delegate.approximate(approximator, spec));
    }

    /** Values of {@code x} outside {@code domain}, on a tensor engine; 0 on anything else (a traced scalar). */
    static <T> long countOutside(Arith<T> arith, T x, Domain domain) {
        if (!(arith instanceof TensorOps<T> ops)) {
            return 0;
        }
        long n = 0;
        for (double v : ops.toPlain(x).data()) {
            if (!domain.contains(v)) {
                n++;
            }
        }
        return n;
    }

    private final class Checked implements Approximation {
        private final Approximation a;

        Checked(Approximation a) {
            this.a = a;
        }

        private <T> void check(Arith<T> arith, T x) {
            long n = countOutside(arith, x, a.domain());
            if (n > 0) {
                outside.accept(site + " " + a.function(), n);
            }
        }

        @Override
        public String describe() {
            return a.describe();
        }

        @Override
        public String function() {
            return a.function();
        }

        @Override
        public Domain domain() {
            return a.domain();
        }

        @Override
        public int degree() {
            return a.degree();
        }

        @Override
        public double exact(double x) {
            return a.exact(x);
        }

        @Override
        public <T> T evaluate(Arith<T> arith, T x) {
            check(arith, x);
            return a.evaluate(arith, x);
        }

        @Override
        public <T> T evaluateOnDomain(Arith<T> arith, T x) {
            check(arith, x);
            return a.evaluateOnDomain(arith, x);
        }

        @Override
        public int depth() {
            return a.depth();
        }

        @Override
        public double maxError() {
            return a.maxError();
        }

        @Override
        public double maxRelativeError() {
            return a.maxRelativeError();
        }
    }
}
