package dev.polyhe.approx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.Options;
import dev.polyhe.api.PolyHeApi;
import dev.polyhe.api.approx.Approximation;
import dev.polyhe.api.approx.ApproximationSpec;
import dev.polyhe.api.approx.Domain;
import dev.polyhe.api.approx.PolynomialApproximator;
import dev.polyhe.api.approx.TargetFunctions;
import dev.polyhe.approx.chebyshev.ChebyshevApproximator;
import dev.polyhe.approx.chebyshev.GeluSigmoidApproximator;
import dev.polyhe.approx.goldschmidt.GoldschmidtInverseApproximator;
import dev.polyhe.approx.goldschmidt.GoldschmidtInverseSqrtApproximator;
import dev.polyhe.approx.taylor.TaylorExpApproximator;
import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ApproximatorServicesTest {
    private static final List<PolynomialApproximator> ALL = List.of(
            new GoldschmidtInverseApproximator(),
            new GoldschmidtInverseSqrtApproximator(),
            new ChebyshevApproximator(),
            new GeluSigmoidApproximator(),
            new TaylorExpApproximator());

    private static ApproximationSpec spec(String function, double lo, double hi, Map<String, String> options) {
        return new ApproximationSpec(
                function, null, new Domain(lo, hi), new Options("approximation '" + function + "'", options));
    }

    @Test
    void namesAndVersion() {
        assertEquals(
                Set.of("goldschmidt-inverse", "goldschmidt-inv-sqrt", "chebyshev", "gelu-sigmoid", "taylor-exp"),
                ALL.stream().map(PolynomialApproximator::name).collect(Collectors.toSet()));
        for (PolynomialApproximator a : ALL) {
            assertEquals(PolyHeApi.VERSION, a.apiVersion());
            assertTrue(!a.description().isBlank(), a.name());
        }
    }

    @Test
    void moduleAndServiceFileDeclareEveryProvider() throws IOException {
        Set<String> classes =
                ALL.stream().map(a -> a.getClass().getName()).collect(Collectors.toCollection(TreeSet::new));
        Module module = GoldschmidtInverseApproximator.class.getModule();
        if (module.isNamed()) {
            ModuleDescriptor.Provides provides = module.getDescriptor().provides().stream()
                    .filter(p -> p.service().equals(PolynomialApproximator.class.getName()))
                    .findFirst()
                    .orElseThrow();
            assertEquals(classes, new TreeSet<>(provides.providers()));
        }
        try (InputStream in = GoldschmidtInverseApproximator.class
                .getClassLoader()
                .getResourceAsStream("META-INF/services/" + PolynomialApproximator.class.getName())) {
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(classes, new TreeSet<>(List.of(text.strip().split("\\s+"))));
        }
    }

    @Test
    void defaultsAndOptions() {
        Approximation inverse = new GoldschmidtInverseApproximator().approximate(spec("inverse", 1e-3, 100, Map.of()));
        assertEquals(22, inverse.depth(), "21 iterations by default");
        Approximation invSqrt = new GoldschmidtInverseSqrtApproximator()
                .approximate(spec("inv-sqrt", 0.01, 10, Map.of("iterations", "6")));
        assertEquals(12, invSqrt.depth());
        Approximation taylor = new TaylorExpApproximator().approximate(spec("exp", -1, 1, Map.of()));
        assertEquals(8, taylor.degree());
        Approximation gelu = new GeluSigmoidApproximator().approximate(spec("gelu", -8, 8, Map.of()));
        assertEquals(32, gelu.degree(), "sigmoid degree 31 by default, times x");
    }

    @Test
    void chebyshevTakesConfigNamesForTargets() {
        for (String name : TargetFunctions.names()) {
            double lo = name.startsWith("inv") ? 0.5 : -2;
            Approximation a = new ChebyshevApproximator().approximate(spec(name, lo, 2.5, Map.of("degree", "40")));
            double tolerance = name.equals("relu") ? 0.05 : 1e-6;
            assertTrue(a.maxError() < tolerance, name + ": " + a.maxError());
        }
        Approximation explicit = new ChebyshevApproximator()
                .approximate(new ApproximationSpec("my-cube", x -> x * x * x, new Domain(-1, 1), Options.empty("t"))
                        .withOption("degree", 3));
        assertTrue(explicit.maxError() < 1e-14);
    }

    @Test
    void badInputIsRefusedWithTheReason() {
        var inverse = new GoldschmidtInverseApproximator();
        String zero = assertThrows(
                        IllegalArgumentException.class, () -> inverse.approximate(spec("inverse", 0, 5, Map.of())))
                .getMessage();
        assertTrue(
                zero.contains("goldschmidt-inverse") && zero.contains("[0.0, 5.0]") && zero.contains("(0, ∞)"), zero);
        String negative = assertThrows(
                        IllegalArgumentException.class,
                        () -> new GoldschmidtInverseSqrtApproximator().approximate(spec("inv-sqrt", -1, 5, Map.of())))
                .getMessage();
        assertTrue(negative.contains("goldschmidt-inv-sqrt") && negative.contains("[-1.0, 5.0]"), negative);

        String tooMany = assertThrows(
                        Options.InvalidOptionException.class,
                        () -> inverse.approximate(spec("inverse", 1, 5, Map.of("iterations", "31"))))
                .getMessage();
        assertEquals("approximation 'inverse': option 'iterations' = 31 is out of range; allowed: 1 .. 30", tooMany);
        String zeroIt = assertThrows(
                        Options.InvalidOptionException.class,
                        () -> inverse.approximate(spec("inverse", 1, 5, Map.of("iterations", "0"))))
                .getMessage();
        assertTrue(zeroIt.contains("'iterations' = 0") && zeroIt.contains("1 .. 30"), zeroIt);

        String unknown = assertThrows(
                        Options.InvalidOptionException.class,
                        () -> new ChebyshevApproximator().approximate(spec("sigmoid", -1, 1, Map.of("degre", "5"))))
                .getMessage();
        assertEquals("approximation 'sigmoid': unknown option 'degre'; allowed: degree", unknown);
        String degree = assertThrows(
                        Options.InvalidOptionException.class,
                        () -> new TaylorExpApproximator().approximate(spec("exp", -1, 1, Map.of("degree", "40"))))
                .getMessage();
        assertTrue(degree.contains("'degree' = 40") && degree.contains("1 .. 30"), degree);

        String unknownTarget = assertThrows(
                        IllegalArgumentException.class,
                        () -> new ChebyshevApproximator().approximate(spec("softplus", -1, 1, Map.of())))
                .getMessage();
        assertTrue(unknownTarget.contains("'softplus'") && unknownTarget.contains("sigmoid"), unknownTarget);
        String notFinite = assertThrows(
                        IllegalArgumentException.class,
                        () -> new ChebyshevApproximator().approximate(spec("inv-sqrt", -1, 1, Map.of())))
                .getMessage();
        assertTrue(notFinite.contains("'inv-sqrt' is not finite"), notFinite);
    }
}
