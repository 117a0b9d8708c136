package dev.polyhe.attention;

import static dev.polyhe.attention.AttentionFixtures.causal;
import static dev.polyhe.attention.AttentionFixtures.gaussian;
import static dev.polyhe.attention.AttentionFixtures.kernel;
import static dev.polyhe.attention.AttentionFixtures.maxAbsDiff;
import static dev.polyhe.attention.AttentionFixtures.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.arith.TensorOps;
import dev.polyhe.api.attention.AttentionKernel;
import dev.polyhe.attention.AttentionFixtures.Run;
import dev.polyhe.attention.power.LengthAgnosticPowerSoftmaxMechanism;
import dev.polyhe.attention.power.PowerSoftmaxMechanism;
import dev.polyhe.core.engine.PlainEngine;
import dev.polyhe.core.engine.PlainTensor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class PowerSoftmaxTest {
    private static final PowerSoftmaxMechanism POWER = new PowerSoftmaxMechanism();
    private static final LengthAgnosticPowerSoftmaxMechanism LENGTH_AGNOSTIC =
            new LengthAgnosticPowerSoftmaxMechanism();

    /** The golden files' reference: s ⊙ M, then w = s⁴/(1e-3 + Σ_k s_k⁴) over all keys. */
    private static Matrix reference(Matrix scores, Matrix mask, int p, double eps) {
        double[] out = new double[scores.data().length];
        for (int r = 0; r < scores.rows(); r++) {
            double sum = 0;
            double[] pow = new double[scores.cols()];
            for (int c = 0; c < scores.cols(); c++) {
                double s = scores.get(r, c) * (mask == null ? 1 : mask.get(r, c));
                pow[c] = Math.pow(s, p);
                sum += pow[c];
            }
            for (int c = 0; c < scores.cols(); c++) {
                out[r * scores.cols() + c] = pow[c] / (eps + sum);
            }
        }
        return new Matrix(scores.rows(), scores.cols(), out);
    }

    @Test
    void defaultsReproduceTheReferencePowerSoftmax() {
        Matrix s = gaussian(16, 16, 1.3, 7);
        Matrix mask = causal(16, 16);
        AttentionKernel k = kernel(POWER, Map.of());
        assertEquals("power-softmax(p=4, epsilon=0.001, exact division)", k.describe());
        assertFalse(k.polynomial());
        assertTrue(maxAbsDiff(reference(s, mask, 4, 1e-3), run(k, s, mask).weights()) < 1e-15);
        assertTrue(maxAbsDiff(reference(s, null, 4, 1e-3), run(k, s, null).weights()) < 1e-15);
        Run p6 = run(kernel(POWER, Map.of("p", "6", "epsilon", "0.01")), s, null);
        assertTrue(maxAbsDiff(reference(s, null, 6, 0.01), p6.weights()) < 1e-15);
    }

    @Test
    void rowsSumToOneInTheExactForm() {
        Matrix s = gaussian(32, 64, 1, 11);
        Run noEpsilon = run(kernel(POWER, Map.of("epsilon", "0")), s, causal(32, 64));
        assertTrue(AttentionFixtures.maxRowSumError(noEpsilon.weights()) < 1e-14);
        // With ε the row sums are S/(ε + S) exactly: below 1 by ε/(ε + S).
        Run withEpsilon = run(kernel(POWER, Map.of()), s, null);
        for (int r = 0; r < s.rows(); r++) {
            double sum4 = 0;
            for (double v : s.row(r)) {
                sum4 += Math.pow(v, 4);
            }
            double rowSum = java.util.Arrays.stream(withEpsilon.row(r)).sum();
            assertEquals(sum4 / (1e-3 + sum4), rowSum, 1e-14);
        }
    }

    @Test
    void goldschmidtFormSumsToOneWithinItsErrorBound() {
        // 6 iterations on a deliberately loose domain [0.5, 50]: the relative error is at most ρ^(2^6), ρ = 49.5/50.5.
        double bound = Math.pow(49.5 / 50.5, 64);
        assertEquals(0.279, bound, 1e-3);
        Matrix s = gaussian(32, 128, 1, 5);
        Run exact = run(kernel(POWER, Map.of()), s, null);
        Run approx = run(kernel(LENGTH_AGNOSTIC, Map.of("iterations", "6", "lo", "0.5", "hi", "50")), s, null);
        double worstRelative = 0;
        for (int r = 0; r < s.rows(); r++) {
            double mean4 = java.util.Arrays.stream(s.row(r))
                    .map(v -> Math.pow(v, 4))
                    .average()
                    .orElseThrow();
            assertTrue(mean4 > 0.5 && mean4 < 50, "precondition: row mean of x⁴ in the domain, got " + mean4);
            double exactSum = java.util.Arrays.stream(exact.row(r)).sum();
            double approxSum = java.util.Arrays.stream(approx.row(r)).sum();
            worstRelative = Math.max(worstRelative, Math.abs(approxSum - exactSum) / exactSum);
            assertTrue(approxSum <= exactSum + 1e-15, "Goldschmidt never overshoots 1/x");
        }
        assertTrue(worstRelative <= bound, "row sums off by " + worstRelative + " > bound " + bound);
        assertTrue(worstRelative > 1e-6, "the bound is exercised: " + worstRelative);
        assertTrue(AttentionFixtures.maxRowSumError(approx.weights()) <= bound + 1e-3 / 128, "within bound + ε/S");
        // The default 21 iterations on [1e-3, 100] are exact to rounding.
        Run defaults = run(kernel(LENGTH_AGNOSTIC, Map.of()), s, null);
        assertTrue(maxAbsDiff(exact.weights(), defaults.weights()) < 1e-14);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"exact", "goldschmidt"})
    void orderOfMagnitudesIsPreserved(String division) {
        Matrix s = gaussian(16, 32, 1, 3);
        Run w = run(kernel(LENGTH_AGNOSTIC, Map.of("division", division)), s, null);
        for (int r = 0; r < s.rows(); r++) {
            for (int i = 0; i < s.cols(); i++) {
                for (int j = 0; j < s.cols(); j++) {
                    if (Math.abs(s.get(r, i)) < Math.abs(s.get(r, j))) {
                        assertTrue(
                                w.weights().get(r, i) <= w.weights().get(r, j), "row " + r + ": keys " + i + ", " + j);
                    }
                }
            }
        }
    }

    @Test
    void stableVariantIsInvariantToPositiveScaling() {
        Matrix s = gaussian(8, 32, 1, 9);
        AttentionKernel stable = kernel(POWER, Map.of("stable", "true", "delta", "0"));
        assertFalse(stable.polynomial());
        Matrix base = run(stable, s, null).weights();
        AttentionKernel plain = kernel(POWER, Map.of());
        for (double lambda : new double[] {1e-3, 0.5, 37, 1e4}) {
            Matrix scaled = scale(s, lambda);
            assertTrue(maxAbsDiff(base, run(stable, scaled, null).weights()) < 1e-14, "λ = " + lambda);
        }
        // Without the stable scaling ε breaks the invariance (and large λ overflows in training, Sec. 4.3).
        assertTrue(maxAbsDiff(
                        run(plain, s, null).weights(),
                        run(plain, scale(s, 1e-3), null).weights())
                > 0.1);
        // The default δ = 1e-6 keeps it invariant to within δ/max|x|.
        AttentionKernel withDelta = kernel(POWER, Map.of("stable", "true"));
        Matrix d = run(withDelta, s, null).weights();
        assertTrue(maxAbsDiff(d, run(withDelta, scale(s, 10), null).weights()) < 1e-5);
    }

    private static Matrix scale(Matrix s, double lambda) {
        return new Matrix(
                s.rows(),
                s.cols(),
                java.util.Arrays.stream(s.data()).map(v -> v * lambda).toArray());
    }

    @ParameterizedTest(name = "L={0}")
    @ValueSource(ints = {8, 128, 1024})
    void lengthAgnosticFormEqualsThePlainForm(int keys) {
        Matrix s = gaussian(4, keys, 1, keys);
        Matrix plain = run(kernel(POWER, Map.of()), s, null).weights();
        Matrix literal =
                run(kernel(POWER, Map.of("length-agnostic", "true")), s, null).weights();
        assertTrue(maxAbsDiff(plain, literal) < 1e-15, "Eq. 7 with exact division");
        // Goldschmidt on the mean's domain: one domain [1e-3, 100] for every L.
        Run goldschmidt = run(kernel(LENGTH_AGNOSTIC, Map.of()), s, null);
        assertTrue(maxAbsDiff(plain, goldschmidt.weights()) < 1e-14, "Goldschmidt, L = " + keys);
        assertEquals(0, goldschmidt.nonPolynomialCalls());
    }

    /**
     * Eq. 7 with a causal mask: row t sees t + 1 keys and is divided by t + 1, not by the row's width, so Goldschmidt
     * needs only the domain of the per-row means (ε + Σ x^p)/(t + 1), whose spread does not grow along the sequence.
     * The domain below holds those and not the sums divided by the width (row 0's falls below it).
     */
    @Test
    void aCausalRowIsDividedByItsOwnLength() {
        int n = 64;
        Matrix s = gaussian(n, n, 1, 11);
        Matrix mask = causal(n, n);
        double lo = Double.POSITIVE_INFINITY;
        double hi = 0;
        double loOverWidth = Double.POSITIVE_INFINITY;
        for (int r = 0; r < n; r++) {
            double sum = 1e-3;
            for (int c = 0; c <= r; c++) {
                sum += Math.pow(s.get(r, c), 4);
            }
            lo = Math.min(lo, sum / (r + 1));
            hi = Math.max(hi, sum / (r + 1));
            loOverWidth = Math.min(loOverWidth, sum / n);
        }
        assertTrue(
                loOverWidth < 0.5 * lo, "the case tells per-row lengths from the width: " + loOverWidth + " vs " + lo);
        Run r = run(
                kernel(
                        LENGTH_AGNOSTIC,
                        Map.of("lo", String.valueOf(0.9 * lo), "hi", String.valueOf(1.1 * hi), "iterations", "30")),
                s,
                mask);
        assertTrue(
                maxAbsDiff(reference(s, mask, 4, 1e-3), r.weights()) < 1e-9,
                "per-row Eq. 7 vs PowerSoftmax: " + maxAbsDiff(reference(s, mask, 4, 1e-3), r.weights()));
        assertEquals(0, r.nonPolynomialCalls());
    }

    @Test
    void maskedKeysGetZeroWeight() {
        Matrix s = gaussian(8, 8, 1, 2);
        Matrix mask = causal(8, 8);
        for (AttentionKernel k : new AttentionKernel[] {
            kernel(POWER, Map.of()), kernel(LENGTH_AGNOSTIC, Map.of()), kernel(POWER, Map.of("stable", "true"))
        }) {
            Matrix w = run(k, s, mask).weights();
            for (int r = 0; r < 8; r++) {
                for (int c = r + 1; c < 8; c++) {
                    assertEquals(0.0, Math.abs(w.get(r, c)), k.describe() + " [" + r + ", " + c + "]");
                }
                assertTrue(w.get(r, 0) > 0 || s.get(r, 0) == 0);
            }
        }
    }

    @ParameterizedTest(name = "p={0}, iterations={1}")
    @CsvSource({"4, 21", "4, 12", "6, 21", "2, 8"})
    void depthIsPowerPlusGoldschmidtPlusOneForEveryLength(int p, int iterations) {
        int expected = (int) Math.ceil(Math.log(p) / Math.log(2)) + (iterations + 1) + 1;
        AttentionKernel k = kernel(
                LENGTH_AGNOSTIC,
                Map.of("p", String.valueOf(p), "iterations", String.valueOf(iterations), "guess-degree", "0"));
        assertTrue(k.polynomial());
        for (int keys : new int[] {8, 128, 1024}) {
            Matrix s = gaussian(2, keys, 0.8, 1);
            assertEquals(expected, run(k, s, null).depth(), "L = " + keys);
            assertEquals(
                    expected + 1, run(k, s, causal(2, keys)).depth(), "masked (one plaintext product), L = " + keys);
        }
    }

    @Test
    void paperDefaultDepth() {
        // x⁴ (2) + Goldschmidt with 21 iterations (22) + the product (1).
        assertEquals(
                25,
                run(kernel(LENGTH_AGNOSTIC, Map.of("guess-degree", "0")), gaussian(4, 128, 1, 1), null)
                        .depth());
        // from a first guess of degree 127 on [1e-3, 100] (κ = 1e5, ρ' ≈ 0.74, 0.8 with y0's own error): x⁴ (2) + the
        // guess (8) + e0 (1) + 8 iterations to a truncation of 2^-40, P_8 one level behind e0^128 (8) + n·y0·P (1)
        AttentionKernel g127 = kernel(LENGTH_AGNOSTIC, Map.of("guess-degree", "127"));
        assertTrue(g127.describe().contains("guess-degree=127, iterations=8 of 21"), g127.describe());
        assertEquals(20, run(g127, gaussian(4, 128, 1, 1), null).depth());
        // degree 63 (7 levels) needs 9 iterations for the same depth: the automatic choice takes the smaller guess
        AttentionKernel guessed = kernel(LENGTH_AGNOSTIC, Map.of());
        assertTrue(guessed.describe().contains("guess-degree=63, iterations=9 of 21"), guessed.describe());
        assertEquals(20, run(guessed, gaussian(4, 128, 1, 1), null).depth());
    }

    /**
     * The weights are announced to the engine as lying in [0, 1] (TensorOps#bound): engines that track magnitudes
     * by interval arithmetic would otherwise carry Goldschmidt's bound (1e10 and more) into the attention's output.
     * Checked on every form, through an engine that records what it is told.
     */
    /**
     * Goldschmidt from a Chebyshev first guess gives exact division's weights to float64 rounding wherever the
     * denominators lie in its domain, whatever the guess's degree, the domain's spread and the mask: as close as plain
     * Goldschmidt's, whose rounding grows with the spread κ too.
     */
    @ParameterizedTest(name = "domain [{0}, {1}], guess-degree {2}")
    @CsvSource({"1e-4, 1e4, 15", "1e-4, 1e4, 127", "1e-3, 100, 63", "1e-3, 1e3, auto", "1e-3, 100, 31", "0.5, 40, 7"})
    void firstGuessDivisionGivesExactDivisionsWeights(String lo, String hi, String guess) {
        Map<String, String> options =
                Map.of("division", "goldschmidt", "lo", lo, "hi", hi, "guess-degree", guess, "iterations", "30");
        Map<String, String> plainOptions = new java.util.HashMap<>(options);
        plainOptions.put("guess-degree", "0");
        boolean narrow = Double.parseDouble(lo) >= 0.1;
        for (long seed = 1; seed <= 3; seed++) {
            // scores of scale 0.8 keep ε + Σx⁴ of 12 keys within [1e-3, 100]; the narrow domain gets scores of 1 to 1.3
            Matrix s = gaussian(12, 12, 0.8, seed);
            if (narrow) {
                s = shiftedIntoNarrowDomain(s);
            }
            for (Matrix mask : new Matrix[] {null, causal(12, 12)}) {
                Matrix exact = run(kernel(POWER, Map.of()), s, mask).weights();
                Run guessed = run(kernel(POWER, options), s, mask);
                double plain = maxAbsDiff(
                        exact, run(kernel(POWER, plainOptions), s, mask).weights());
                double error = maxAbsDiff(exact, guessed.weights());
                assertTrue(
                        error < Math.max(1e-14, 4 * plain),
                        "seed " + seed + ", masked " + (mask != null) + ": " + error + " against plain Goldschmidt's "
                                + plain);
                assertEquals(0, guessed.nonPolynomialCalls());
            }
        }
    }

    /** Scores of 1 to 1.3 in every key: ε + Σx⁴ of 12 keys (or of a causal row's first keys) within [1, 35]. */
    private static Matrix shiftedIntoNarrowDomain(Matrix s) {
        double[] d = s.data().clone();
        for (int i = 0; i < d.length; i++) {
            d[i] = 1 + 0.3 / (1 + Math.exp(-d[i]));
        }
        return new Matrix(s.rows(), s.cols(), d);
    }

    /**
     * auto takes a first guess where it saves levels (a wide domain) and none where it would cost them (a narrow one).
     */
    @Test
    void autoGuessesOnlyWhereItSavesLevels() {
        Matrix s = gaussian(4, 16, 1, 3);
        for (String[] domain : new String[][] {{"1e-3", "100"}, {"1", "4"}}) {
            Map<String, String> base = Map.of("division", "goldschmidt", "lo", domain[0], "hi", domain[1]);
            AttentionKernel auto = kernel(POWER, base);
            Map<String, String> plainOptions = new java.util.HashMap<>(base);
            plainOptions.put("guess-degree", "0");
            int plain = run(kernel(POWER, plainOptions), s, null).depth();
            int chosen = run(auto, s, null).depth();
            boolean wide = domain[0].equals("1e-3");
            assertEquals(wide, auto.describe().contains("guess-degree"), auto.describe());
            assertTrue(wide ? chosen < plain : chosen == plain, "auto " + chosen + " against plain " + plain);
        }
    }

    @ParameterizedTest(name = "{0}, {1}, guess-degree {2}")
    @CsvSource({
        "power-softmax, exact, 0",
        "power-softmax, goldschmidt, 0",
        "length-agnostic, goldschmidt, 0",
        "power-softmax, goldschmidt, 127",
        "length-agnostic, goldschmidt, 31"
    })
    @SuppressWarnings("unchecked")
    void theWeightsAreAnnouncedToLieWithinZeroAndOne(String form, String division, int guess) {
        PlainEngine plain = new PlainEngine();
        List<double[]> announced = new ArrayList<>();
        List<Object> bounded = new ArrayList<>();
        TensorOps<PlainTensor> recording = (TensorOps<PlainTensor>) Proxy.newProxyInstance(
                TensorOps.class.getClassLoader(), new Class<?>[] {TensorOps.class}, (proxy, method, args) -> {
                    Object result;
                    try {
                        result = method.invoke(plain, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if (method.getName().equals("bound")) {
                        double lo = (double) args[1];
                        double hi = (double) args[2];
                        announced.add(new double[] {lo, hi});
                        bounded.add(result);
                        // every range announced holds: an engine scales values by it before bootstrapping them
                        double slack = 1e-9 * Math.max(Math.abs(lo), Math.abs(hi));
                        for (double v : ((PlainTensor) result).toMatrix().data()) {
                            assertTrue(
                                    v >= lo - slack && v <= hi + slack,
                                    v + " outside the announced [" + lo + ", " + hi + "], announcement "
                                            + announced.size());
                        }
                    }
                    return result;
                });
        // a Goldschmidt domain that holds every denominator of these scores (it diverges above lo + hi)
        Map<String, String> options = division.equals("exact")
                ? Map.of("division", division)
                : Map.of(
                        "division",
                        division,
                        "lo",
                        "1e-4",
                        "hi",
                        "1e4",
                        "iterations",
                        "30",
                        "guess-degree",
                        String.valueOf(guess));
        AttentionKernel k = kernel(form.equals("power-softmax") ? POWER : LENGTH_AGNOSTIC, options);
        Matrix s = gaussian(8, 8, 1, 5);
        PlainTensor out = k.normalize(recording, plain.fromPlain(s), causal(8, 8));

        assertFalse(announced.isEmpty(), "nothing announced");
        assertEquals(0, announced.get(announced.size() - 1)[0]);
        assertEquals(1, announced.get(announced.size() - 1)[1]);
        assertTrue(bounded.get(bounded.size() - 1) == out, "the announced tensor is the one returned");
        for (double w : out.toMatrix().data()) {
            assertTrue(w >= 0 && w <= 1, "a weight outside [0, 1]: " + w);
        }
    }
}
