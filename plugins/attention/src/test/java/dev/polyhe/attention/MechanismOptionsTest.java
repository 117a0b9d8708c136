package dev.polyhe.attention;

import static dev.polyhe.attention.AttentionFixtures.kernel;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.Options;
import dev.polyhe.api.PolyHeApi;
import dev.polyhe.api.attention.AttentionMechanism;
import dev.polyhe.attention.power.LengthAgnosticPowerSoftmaxMechanism;
import dev.polyhe.attention.power.PowerSoftmaxMechanism;
import dev.polyhe.attention.relu.ScaledReluMechanism;
import dev.polyhe.attention.softmax.NormalizeAndSquareMechanism;
import dev.polyhe.attention.softmax.SoftmaxMechanism;
import dev.polyhe.attention.softmax.TaylorGoldschmidtSoftmaxMechanism;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class MechanismOptionsTest {
    private static final List<AttentionMechanism> ALL = List.of(
            new SoftmaxMechanism(),
            new PowerSoftmaxMechanism(),
            new LengthAgnosticPowerSoftmaxMechanism(),
            new TaylorGoldschmidtSoftmaxMechanism(),
            new NormalizeAndSquareMechanism(),
            new ScaledReluMechanism());

    private static String refused(AttentionMechanism m, Map<String, String> options) {
        return assertThrows(Options.InvalidOptionException.class, () -> kernel(m, options))
                .getMessage();
    }

    @Test
    void namesOptionsAndServiceDeclarations() throws Exception {
        assertEquals(
                List.of(
                        "softmax",
                        "power-softmax",
                        "power-softmax-length-agnostic",
                        "softmax-taylor-goldschmidt",
                        "softmax-square",
                        "scaled-relu"),
                ALL.stream().map(AttentionMechanism::name).toList());
        assertEquals(
                Set.of(
                        "p",
                        "epsilon",
                        "stable",
                        "delta",
                        "length-agnostic",
                        "division",
                        "iterations",
                        "guess-degree",
                        "lo",
                        "hi"),
                new PowerSoftmaxMechanism().optionNames());
        assertEquals(
                Set.of("p", "epsilon", "stable", "delta", "division", "iterations", "guess-degree", "lo", "hi"),
                new LengthAgnosticPowerSoftmaxMechanism().optionNames());
        assertEquals(Set.of(), new SoftmaxMechanism().optionNames());
        assertEquals(
                Set.of("degree", "iterations", "subtract-max", "lo", "hi"),
                new TaylorGoldschmidtSoftmaxMechanism().optionNames());
        assertEquals(
                Set.of("squarings", "range", "degree", "iterations", "final-iterations"),
                new NormalizeAndSquareMechanism().optionNames());
        assertEquals(Set.of("degree", "range"), new ScaledReluMechanism().optionNames());
        // what a host drops when it runs the mechanism with division=exact; none without a division option
        assertEquals(
                Set.of("iterations", "guess-degree", "lo", "hi"), new PowerSoftmaxMechanism().divisionOptionNames());
        assertEquals(
                Set.of("iterations", "guess-degree", "lo", "hi"),
                new LengthAgnosticPowerSoftmaxMechanism().divisionOptionNames());
        assertEquals(Set.of(), new TaylorGoldschmidtSoftmaxMechanism().divisionOptionNames());
        assertEquals(Set.of(), new SoftmaxMechanism().divisionOptionNames());
        Set<String> classes =
                ALL.stream().map(m -> m.getClass().getName()).collect(Collectors.toCollection(TreeSet::new));
        for (AttentionMechanism m : ALL) {
            assertEquals(PolyHeApi.VERSION, m.apiVersion());
            assertTrue(!m.description().isBlank());
            kernel(m, Map.of()); // defaults are valid
        }
        Module module = SoftmaxMechanism.class.getModule();
        assertTrue(module.isNamed(), "tests run on the module path");
        assertEquals(
                classes,
                new TreeSet<>(module.getDescriptor().provides().stream()
                        .filter(p -> p.service().equals(AttentionMechanism.class.getName()))
                        .findFirst()
                        .orElseThrow()
                        .providers()));
        assertTrue(
                module.getDescriptor().requires().stream()
                        .allMatch(r -> Set.of("java.base", "dev.polyhe.api").contains(r.name())),
                "depends on the api only");
        try (InputStream in = SoftmaxMechanism.class
                .getClassLoader()
                .getResourceAsStream("META-INF/services/" + AttentionMechanism.class.getName())) {
            assertEquals(
                    classes,
                    new TreeSet<>(List.of(new String(in.readAllBytes(), StandardCharsets.UTF_8)
                            .strip()
                            .split("\\s+"))));
        }
    }

    @Test
    void powerMustBeEven() {
        for (String p : new String[] {"3", "0", "66", "-2"}) {
            String message = refused(new PowerSoftmaxMechanism(), Map.of("p", p));
            assertEquals(
                    "attention 'power-softmax': option 'p' = " + p
                            + " is not allowed; allowed: an even integer from 2 to 64"
                            + " (an even power keeps x^p ≥ 0, so the weights are a distribution)",
                    message);
        }
        assertTrue(
                refused(new PowerSoftmaxMechanism(), Map.of("p", "four")).contains("'p' = 'four' is not an integer"));
    }

    @Test
    void epsilonMustNotBeNegative() {
        String message = refused(new LengthAgnosticPowerSoftmaxMechanism(), Map.of("epsilon", "-0.001"));
        assertEquals(
                "attention 'power-softmax-length-agnostic': option 'epsilon' = -0.001 is out of range; allowed: ≥ 0.0"
                        + " (ε of the ε-Lipschitz denominator ε + Σx^p)",
                message);
    }

    @Test
    void unknownKeysAreErrors() {
        assertEquals(
                "attention 'power-softmax': unknown option 'eps'; allowed: delta, division, epsilon, guess-degree,"
                        + " hi, iterations, length-agnostic, lo, p, stable",
                refused(new PowerSoftmaxMechanism(), Map.of("eps", "1")));
        assertTrue(refused(new LengthAgnosticPowerSoftmaxMechanism(), Map.of("length-agnostic", "false"))
                .contains("unknown option 'length-agnostic'"));
        assertEquals(
                "attention 'softmax': unknown option 'p'; this mechanism takes no options",
                refused(new SoftmaxMechanism(), Map.of("p", "4")));
    }

    @Test
    void guessDegreeOutOfRangeOrWithoutGoldschmidt() {
        assertEquals(
                "attention 'power-softmax-length-agnostic': option 'guess-degree' = 128 is out "
                        + "of range; allowed: 0 .. 127",
                refused(new LengthAgnosticPowerSoftmaxMechanism(), Map.of("guess-degree", "128")));
        assertTrue(refused(new LengthAgnosticPowerSoftmaxMechanism(), Map.of("guess-degree", "some"))
                .contains("'guess-degree' = 'some' is not an integer"));
        assertTrue(refused(new PowerSoftmaxMechanism(), Map.of("guess-degree", "15"))
                .contains("division=goldschmidt"));
        kernel(new LengthAgnosticPowerSoftmaxMechanism(), Map.of("guess-degree", "auto"));
        kernel(new LengthAgnosticPowerSoftmaxMechanism(), Map.of("guess-degree", "0"));
    }

    @Test
    void iterationsOutOfRange() {
        assertEquals(
                "attention 'power-softmax-length-agnostic': option 'iterations' = 31 is out of range; allowed: 1 .. 30",
                refused(new LengthAgnosticPowerSoftmaxMechanism(), Map.of("iterations", "31")));
        assertTrue(refused(new TaylorGoldschmidtSoftmaxMechanism(), Map.of("iterations", "0"))
                .contains("'iterations' = 0 is out of range"));
        assertTrue(refused(new NormalizeAndSquareMechanism(), Map.of("final-iterations", "40"))
                .contains("'final-iterations' = 40 is out of range; allowed: 1 .. 30"));
        assertTrue(refused(new NormalizeAndSquareMechanism(), Map.of("squarings", "13"))
                .contains("allowed: 0 .. 12"));
        assertTrue(refused(new TaylorGoldschmidtSoftmaxMechanism(), Map.of("degree", "31"))
                .contains("'degree' = 31 is out of range"));
    }

    @Test
    void optionsThatNeedAnother() {
        assertEquals(
                "attention 'power-softmax': option 'iterations' applies only with division=goldschmidt",
                refused(new PowerSoftmaxMechanism(), Map.of("iterations", "12")));
        assertEquals(
                "attention 'power-softmax': option 'delta' applies only with stable=true",
                refused(new PowerSoftmaxMechanism(), Map.of("delta", "0.1")));
        assertEquals(
                "attention 'power-softmax': option 'division' = 'newton' is not allowed; allowed: exact, goldschmidt",
                refused(new PowerSoftmaxMechanism(), Map.of("division", "newton")));
    }

    @Test
    void goldschmidtDomainMustExcludeZero() {
        assertTrue(refused(new LengthAgnosticPowerSoftmaxMechanism(), Map.of("lo", "0"))
                .contains("option 'lo' = 0.0 is out of range; allowed: > 0"));
        assertTrue(refused(new LengthAgnosticPowerSoftmaxMechanism(), Map.of("lo", "2", "hi", "1"))
                .contains("option 'hi' = 1.0 must be greater than lo = 2.0"));
        assertTrue(refused(new ScaledReluMechanism(), Map.of("range", "-1"))
                .contains("'range' = -1 is out of range; allowed: > 0"));
    }

    @Test
    void maskShapeIsChecked() {
        var k = kernel(new PowerSoftmaxMechanism(), Map.of());
        String message = assertThrows(
                        IllegalArgumentException.class,
                        () -> AttentionFixtures.run(k, AttentionFixtures.gaussian(2, 3, 1, 1), Matrix.zeros(3, 3)))
                .getMessage();
        assertEquals("attention mask is [3, 3] but the scores are [2, 3]", message);
    }
}
