package dev.polyhe.he.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.api.he.Evaluator;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.api.he.HeException;
import dev.polyhe.api.he.HeSerializer;
import dev.polyhe.api.he.InsecureParametersException;
import dev.polyhe.api.he.Plaintext;
import dev.polyhe.api.he.PublicKey;
import dev.polyhe.api.he.SecretKey;
import dev.polyhe.api.he.SecurityLevel;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What every {@link HeBackend} must do, checked against plaintext double arithmetic. A backend's test extends
 * this class and supplies the backend and parameters; it inherits every check. Precision is asserted in bits,
 * −log2(max |error|) over all slots, with inputs in [−1, 1]; the thresholds follow from the parameters
 * (override {@link #minimumBits} where a backend documents a different figure). The context, keys and helpers are
 * {@link ConformanceFixture}'s.
 */
public abstract class HeBackendConformanceTest extends ConformanceFixture {
    // ---- encoding and encryption ---------------------------------------------------------------------------

    @Test
    public void encodeDecodeFullAndSparseSlots() {
        double[] v = randomVector(slots);
        Plaintext pt = encoder.encode(v, slots, maxLevel, scale);
        assertEquals(maxLevel, pt.level());
        assertEquals(scale, pt.scale());
        assertPrecision("encode", v, encoder.decode(pt));
        for (int sparse : new int[] {1, 8, slots / 4}) {
            double[] w = randomVector(sparse);
            Plaintext sp = encoder.encode(w, sparse, maxLevel, scale);
            assertEquals(sparse, sp.slots());
            assertPrecision("encode", w, encoder.decode(sp));
        }
        double[] shorter = randomVector(slots / 2 + 1);
        double[] padded = Arrays.copyOf(shorter, slots);
        assertPrecision("encode", padded, encoder.decode(encoder.encode(shorter, slots, 0, scale)));
    }

    @Test
    public void encodeDecodeComplex() {
        double[] re = randomVector(slots);
        double[] im = randomVector(slots);
        double[][] out = encoder.decodeComplex(encoder.encodeComplex(re, im, slots, maxLevel, scale));
        assertPrecision("encode", re, out[0]);
        assertPrecision("encode", im, out[1]);
    }

    @Test
    public void encryptDecryptPublicAndSecretKey() {
        double[] v = randomVector(slots);
        Plaintext pt = encoder.encode(v, slots, maxLevel, scale);
        Ciphertext pk = encryptor.encrypt(pt);
        Ciphertext sk = symmetricEncryptor.encrypt(pt);
        assertEquals(maxLevel, pk.level());
        assertEquals(scale, pk.scale());
        assertEquals(slots, pk.slots());
        assertEquals(secretKey.keySetId(), pk.keySetId());
        assertEquals(context.parameterHash(), pk.parameterHash());
        assertPrecision("encrypt-pk", v, decrypt(pk));
        assertPrecision("encrypt-sk", v, decrypt(sk));
        double[] w = randomVector(4);
        Ciphertext low = encryptor.encrypt(encoder.encode(w, 4, 1, scale));
        assertEquals(1, low.level());
        assertPrecision("encrypt-pk", w, decrypt(low));
    }

    @Test
    public void encryptionIsRandomized() {
        double[] v = randomVector(slots);
        Plaintext pt = encoder.encode(v, slots, maxLevel, scale);
        double[] a = decrypt(encryptor.encrypt(pt));
        double[] b = decrypt(encryptor.encrypt(pt));
        assertFalse(Arrays.equals(a, b), "two encryptions of one plaintext decrypt to identical noise");
    }

    // ---- linear operations ---------------------------------------------------------------------------------

    @Test
    public void addSubNegate() {
        double[] x = randomVector(slots);
        double[] y = randomVector(slots);
        Ciphertext cx = encrypt(x);
        Ciphertext cy = encrypt(y);
        double[] sum = new double[slots];
        double[] diff = new double[slots];
        double[] neg = new double[slots];
        for (int i = 0; i < slots; i++) {
            sum[i] = x[i] + y[i];
            diff[i] = x[i] - y[i];
            neg[i] = -x[i];
        }
        assertPrecision("add", sum, decrypt(evaluator.add(cx, cy)));
        assertPrecision("sub", diff, decrypt(evaluator.sub(cx, cy)));
        assertPrecision("negate", neg, decrypt(evaluator.negate(cx)));
    }

    @Test
    public void addPlainAndConstant() {
        double[] x = randomVector(slots);
        double[] y = randomVector(slots);
        Ciphertext cx = encrypt(x);
        double[] sum = new double[slots];
        double[] plusC = new double[slots];
        for (int i = 0; i < slots; i++) {
            sum[i] = x[i] + y[i];
            plusC[i] = x[i] + 0.3125;
        }
        assertPrecision("addPlain", sum, decrypt(evaluator.addPlain(cx, encoder.encode(y, slots, maxLevel, scale))));
        assertPrecision("addConstant", plusC, decrypt(evaluator.addConstant(cx, 0.3125)));
    }

    // ---- multiplications -----------------------------------------------------------------------------------

    @Test
    public void multiplyRelinearizeRescale() {
        double[] x = randomVector(slots);
        double[] y = randomVector(slots);
        Ciphertext prod = evaluator.multiply(encrypt(x), encrypt(y));
        assertEquals(maxLevel, prod.level());
        assertEquals(
                scale * scale, prod.scale(), scale * scale * 1e-12, "the product's scale is the product of scales");
        Ciphertext r = evaluator.rescale(prod);
        assertEquals(maxLevel - 1, r.level());
        double[] expected = new double[slots];
        for (int i = 0; i < slots; i++) {
            expected[i] = x[i] * y[i];
        }
        assertPrecision("multiply", expected, decrypt(r));
        assertPrecision("multiply", expected, decrypt(prod));
    }

    @Test
    public void multiplyAndRescaleEqualsMultiplyThenRescale() {
        double[] x = randomVector(slots);
        double[] y = randomVector(slots);
        double[] expected = new double[slots];
        for (int i = 0; i < slots; i++) {
            expected[i] = x[i] * y[i];
        }
        Ciphertext cx = encrypt(x);
        Ciphertext cy = encrypt(y);
        // at the top and at level 1 (the last prime left to divide by), operands at different levels
        for (int level : new int[] {maxLevel, 1}) {
            Ciphertext a = evaluator.dropToLevel(cx, level);
            Ciphertext b = level == maxLevel ? cy : evaluator.dropToLevel(cy, level + 1);
            Ciphertext fused = evaluator.multiplyAndRescale(a, b);
            Ciphertext apart = evaluator.rescale(evaluator.multiply(a, b));
            assertEquals(apart.level(), fused.level());
            assertEquals(level - 1, fused.level());
            assertEquals(apart.scale(), fused.scale(), "the same scale as multiply then rescale");
            double[] viaFused = decrypt(fused);
            double[] viaApart = decrypt(apart);
            assertPrecision("multiplyAndRescale at level " + level, expected, viaFused);
            assertPrecision("multiplyAndRescale at level " + level, viaApart, viaFused);
            // fused, the division still rounds as a rescale does: an approximate one lost 1.3 bits at N = 2^16
            double errFused = 0;
            double errApart = 0;
            for (int i = 0; i < slots; i++) {
                errFused = Math.max(errFused, Math.abs(viaFused[i] - expected[i]));
                errApart = Math.max(errApart, Math.abs(viaApart[i] - expected[i]));
            }
            assertTrue(
                    errFused <= 1.5 * errApart,
                    "multiplyAndRescale errs " + errFused + " against multiply then " + "rescale's " + errApart
                            + " at level " + level);
        }
        Ciphertext spent = evaluator.dropToLevel(cx, 0);
        assertThrows(HeException.class, () -> evaluator.multiplyAndRescale(spent, spent));
    }

    @Test
    public void multiplySumEqualsTheSumOfProducts() {
        double[][] xs = {randomVector(slots), randomVector(slots), randomVector(slots)};
        double[][] ys = {randomVector(slots), randomVector(slots), randomVector(slots)};
        double[] expected = new double[slots];
        Ciphertext[] as = new Ciphertext[3];
        Ciphertext[] bs = new Ciphertext[3];
        for (int j = 0; j < 3; j++) {
            for (int i = 0; i < slots; i++) {
                expected[i] += xs[j][i] * ys[j][i];
            }
            // one pair a level lower: the sum lands at the lowest
            as[j] = j == 2 ? evaluator.dropToLevel(encrypt(xs[j]), maxLevel - 1) : encrypt(xs[j]);
            bs[j] = encrypt(ys[j]);
        }
        Ciphertext sum = evaluator.multiplySum(as, bs);
        assertEquals(maxLevel - 1, sum.level());
        assertEquals(as[0].scale() * bs[0].scale(), sum.scale(), sum.scale() * 1e-12);
        assertPrecision("multiplySum", expected, decrypt(evaluator.rescale(sum)));
        assertThrows(IllegalArgumentException.class, () -> evaluator.multiplySum(as, new Ciphertext[2]));
    }

    @Test
    public void multiplyPlain() {
        double[] x = randomVector(slots);
        double[] y = randomVector(slots);
        Ciphertext r =
                evaluator.rescale(evaluator.multiplyPlain(encrypt(x), encoder.encode(y, slots, maxLevel, scale)));
        double[] expected = new double[slots];
        for (int i = 0; i < slots; i++) {
            expected[i] = x[i] * y[i];
        }
        assertEquals(maxLevel - 1, r.level());
        assertPrecision("multiplyPlain", expected, decrypt(r));
    }

    /**
     * sum + a·b in one call equals multiplyPlain then add, slot for slot (a backend's one-pass version adds the same
     * residues), at the top level and one below; a sum at another scale is refused, as add refuses it.
     */
    @Test
    public void multiplyPlainAndAddEqualsMultiplyThenAdd() {
        for (int level : new int[] {maxLevel, maxLevel - 1}) {
            double[] x = randomVector(slots);
            double[] y = randomVector(slots);
            double[] z = randomVector(slots);
            double[] w = randomVector(slots);
            Ciphertext cx = evaluator.dropToLevel(encrypt(x), level);
            Ciphertext cz = evaluator.dropToLevel(encrypt(z), level);
            Plaintext py = encoder.encode(y, slots, level, scale);
            Plaintext pw = encoder.encode(w, slots, level, scale);
            Ciphertext sum = evaluator.multiplyPlain(cz, pw);
            Ciphertext fused = evaluator.multiplyPlainAndAdd(sum, cx, py);
            Ciphertext apart = evaluator.add(sum, evaluator.multiplyPlain(cx, py));
            assertEquals(apart.level(), fused.level());
            assertEquals(apart.scale(), fused.scale());
            double[] expected = new double[slots];
            for (int i = 0; i < slots; i++) {
                expected[i] = x[i] * y[i] + z[i] * w[i];
            }
            double[] viaFused = decrypt(evaluator.rescale(fused));
            assertPrecision("multiplyPlainAndAdd", expected, viaFused);
            org.junit.jupiter.api.Assertions.assertArrayEquals(
                    decrypt(evaluator.rescale(apart)),
                    viaFused,
                    "multiplyPlainAndAdd and multiplyPlain then add decrypt alike at level " + level);
        }
        Ciphertext notAProduct = encrypt(randomVector(slots));
        Plaintext p = encoder.encode(randomVector(slots), slots, maxLevel, scale);
        assertThrows(HeException.class, () -> evaluator.multiplyPlainAndAdd(notAProduct, notAProduct, p));
    }

    /**
     * sum + Σ a_i·b_i in one call decrypts as the products added one by one, slot for slot, with and without a running
     * sum, with a term a level lower (the sum lands at the lowest level); mismatched arrays and a product at another
     * scale are refused.
     */
    @Test
    public void multiplyPlainSumEqualsTheProductsAddedOneByOne() {
        int terms = 5;
        double[] expected = new double[slots];
        Ciphertext[] as = new Ciphertext[terms];
        Plaintext[] bs = new Plaintext[terms];
        for (int t = 0; t < terms; t++) {
            double[] x = randomVector(slots);
            double[] y = randomVector(slots);
            for (int i = 0; i < slots; i++) {
                expected[i] += x[i] * y[i];
            }
            as[t] = t == 3 ? evaluator.dropToLevel(encrypt(x), maxLevel - 1) : encrypt(x);
            bs[t] = encoder.encode(y, slots, maxLevel, scale);
        }
        Ciphertext fused = evaluator.multiplyPlainSum(null, as, bs);
        Ciphertext apart = evaluator.multiplyPlain(as[0], bs[0]);
        for (int t = 1; t < terms; t++) {
            apart = evaluator.add(apart, evaluator.multiplyPlain(as[t], bs[t]));
        }
        assertEquals(maxLevel - 1, fused.level());
        assertEquals(apart.scale(), fused.scale());
        double[] viaFused = decrypt(evaluator.rescale(fused));
        assertPrecision("multiplyPlainSum", expected, viaFused);
        org.junit.jupiter.api.Assertions.assertArrayEquals(decrypt(evaluator.rescale(apart)), viaFused);

        double[] z = randomVector(slots);
        double[] w = randomVector(slots);
        Ciphertext sum = evaluator.multiplyPlain(encrypt(z), encoder.encode(w, slots, maxLevel, scale));
        Ciphertext withSum = evaluator.multiplyPlainSum(sum, as, bs);
        double[] expectedWithSum = expected.clone();
        for (int i = 0; i < slots; i++) {
            expectedWithSum[i] += z[i] * w[i];
        }
        assertEquals(maxLevel - 1, withSum.level());
        double[] viaSum = decrypt(evaluator.rescale(withSum));
        assertPrecision("multiplyPlainSum with a sum", expectedWithSum, viaSum);
        org.junit.jupiter.api.Assertions.assertArrayEquals(
                decrypt(evaluator.rescale(evaluator.add(sum, apart))), viaSum);

        assertThrows(IllegalArgumentException.class, () -> evaluator.multiplyPlainSum(null, as, new Plaintext[2]));
        Plaintext atScaleOne = encoder.encode(randomVector(slots), slots, maxLevel, 1.0);
        Plaintext[] mixed = bs.clone();
        mixed[1] = atScaleOne;
        assertThrows(HeException.class, () -> evaluator.multiplyPlainSum(null, as, mixed));
        Ciphertext notAProduct = encrypt(randomVector(slots));
        assertThrows(HeException.class, () -> evaluator.multiplyPlainSum(notAProduct, as, bs));
    }

    @Test
    public void multiplyConstantRealAndInteger() {
        double[] x = randomVector(slots);
        Ciphertext cx = encrypt(x);
        double c = -0.7431;
        Ciphertext byC = evaluator.rescale(evaluator.multiplyConstant(cx, c));
        assertEquals(maxLevel - 1, byC.level());
        assertEquals(scale, byC.scale(), scale * 1e-9, "multiplyConstant then rescale restores the scale exactly");
        double[] expC = new double[slots];
        double[] expK = new double[slots];
        for (int i = 0; i < slots; i++) {
            expC[i] = c * x[i];
            expK[i] = -3 * x[i];
        }
        assertPrecision("multiplyConstant", expC, decrypt(byC));
        Ciphertext byK = evaluator.multiplyInteger(cx, -3);
        assertEquals(cx.level(), byK.level());
        assertEquals(cx.scale(), byK.scale());
        assertPrecision("multiplyInteger", expK, decrypt(byK));
    }

    /**
     * A constant encoded at a chosen scale: the product's scale is the ciphertext's times it, so a rescale lands where
     * the caller chose (here 3/4 of the input's scale); the values are the constant's product either way. A backend
     * that cannot choose the scale may encode at the prime instead; its result's scale must then say so.
     */
    @Test
    public void multiplyConstantAtAChosenScale() {
        double[] x = randomVector(slots);
        Ciphertext cx = encrypt(x);
        double c = 0.3719;
        Ciphertext atPrime = evaluator.multiplyConstant(cx, c);
        double prime = atPrime.scale() / cx.scale();
        double chosen = 0.75 * prime;
        Ciphertext raw = evaluator.multiplyConstant(cx, c, chosen);
        Ciphertext r = evaluator.rescale(raw);
        double[] expected = new double[slots];
        for (int i = 0; i < slots; i++) {
            expected[i] = c * x[i];
        }
        assertEquals(maxLevel - 1, r.level());
        assertTrue(
                Math.abs(raw.scale() / (cx.scale() * chosen) - 1) < 1e-12
                        || Math.abs(raw.scale() / atPrime.scale() - 1) < 1e-12,
                "the chosen scale or the prime: " + raw.scale());
        assertPrecision("multiplyConstant at a chosen scale", expected, decrypt(r));
    }

    @Test
    public void differentLevelsAreAlignedToTheLowerOne() {
        double[] x = randomVector(slots);
        double[] y = randomVector(slots);
        Ciphertext cx = encrypt(x);
        Ciphertext cy = evaluator.dropToLevel(encrypt(y), maxLevel - 1);
        assertEquals(maxLevel - 1, cy.level());
        Ciphertext sum = evaluator.add(cx, cy);
        assertEquals(maxLevel - 1, sum.level());
        double[] s = new double[slots];
        double[] p = new double[slots];
        for (int i = 0; i < slots; i++) {
            s[i] = x[i] + y[i];
            p[i] = x[i] * y[i];
        }
        assertPrecision("add", s, decrypt(sum));
        Ciphertext prod = evaluator.rescale(evaluator.multiply(cy, cx));
        assertEquals(maxLevel - 2, prod.level());
        assertPrecision("multiply", p, decrypt(prod));
    }

    @Test
    public void depthExhaustingChainThenOutOfLevels() {
        double[] acc = new double[slots];
        Arrays.fill(acc, 1);
        Ciphertext c = encrypt(randomVector(slots));
        double[] first = decrypt(c);
        System.arraycopy(first, 0, acc, 0, slots);
        for (int level = maxLevel; level > 0; level--) {
            double[] y = new double[slots];
            for (int i = 0; i < slots; i++) {
                y[i] = 0.75 + 0.5 * random.nextDouble();
                acc[i] *= y[i];
            }
            Ciphertext cy = encryptor.encrypt(encoder.encode(y, slots, c.level(), c.scale()));
            c = evaluator.rescale(evaluator.multiply(c, cy));
            assertEquals(level - 1, c.level());
            assertPrecision("multiply-chain", acc, decrypt(c));
        }
        Ciphertext last = c;
        HeException e = assertThrows(HeException.class, () -> evaluator.rescale(last));
        assertTrue(e.getMessage().toLowerCase().contains("level"), "the error says levels ran out: " + e.getMessage());
        HeException m = assertThrows(HeException.class, () -> evaluator.rescale(evaluator.multiply(last, last)));
        assertTrue(m.getMessage().toLowerCase().contains("level"), m.getMessage());
    }

    // ---- rotations and conjugation -------------------------------------------------------------------------

    @Test
    public void rotationsByEveryPowerOfTwoAndRandomSteps() {
        double[] x = randomVector(slots);
        Ciphertext cx = encrypt(x);
        List<Integer> steps = new ArrayList<>(powerOfTwoSteps());
        steps.addAll(randomSteps());
        for (int step : steps) {
            assertPrecision("rotate", rotateLeft(x, step), decrypt(evaluator.rotate(cx, step)));
        }
    }

    /**
     * Key switching (rotation, conjugation) must add little noise beyond a fresh encryption's: at most two bits
     * of precision. A biased basis conversion or special primes smaller than a digit show up here first.
     */
    @Test
    public void keySwitchingAddsLittleNoise() {
        double[] x = randomVector(slots);
        Ciphertext cx = encrypt(x);
        double fresh = precisionBits(x, decrypt(cx));
        double rotated = precisionBits(rotateLeft(x, 1), decrypt(evaluator.rotate(cx, 1)));
        double[] conj = decrypt(evaluator.conjugate(cx));
        double conjugated = precisionBits(x, conj);
        assertTrue(rotated >= fresh - 2, String.format("rotation: %.2f bits, fresh encryption %.2f", rotated, fresh));
        assertTrue(conjugated >= fresh - 2, String.format("conjugation: %.2f bits, fresh %.2f", conjugated, fresh));
    }

    @Test
    public void rotationOfSparseSlots() {
        int sparse = 8;
        double[] x = randomVector(sparse);
        Ciphertext cx = encryptor.encrypt(encoder.encode(x, sparse, maxLevel, scale));
        assertPrecision("rotate", rotateLeft(x, 1), decrypt(evaluator.rotate(cx, 1)));
        assertPrecision("rotate", rotateLeft(x, -1), decrypt(evaluator.rotate(cx, -1)));
    }

    @Test
    public void hoistedRotationsEqualPlainRotations() {
        double[] x = randomVector(slots);
        Ciphertext cx = encrypt(x);
        List<Integer> list = new ArrayList<>(powerOfTwoSteps());
        list.addAll(randomSteps());
        list.add(0);
        int[] steps = list.stream().mapToInt(Integer::intValue).toArray();
        Ciphertext[] hoisted = evaluator.rotateHoisted(cx, steps);
        assertEquals(steps.length, hoisted.length);
        for (int k = 0; k < steps.length; k++) {
            double[] viaHoisting = decrypt(hoisted[k]);
            double[] plain = decrypt(evaluator.rotate(cx, steps[k]));
            assertEquals(cx.level(), hoisted[k].level());
            assertPrecision("rotateHoisted", rotateLeft(x, steps[k]), viaHoisting);
            assertPrecision("rotateHoisted", plain, viaHoisting);
        }
    }

    /**
     * The giant steps' sum: several ciphertexts, each rotated by its own step (one not at all, one twice), equal to
     * the rotations added one by one, whatever the backend shares between them; mismatched arguments are refused.
     */
    @Test
    public void rotationsSummedEqualRotationsAdded() {
        List<Integer> list = new ArrayList<>(randomSteps());
        list.add(0);
        list.add(list.get(0));
        int[] steps = list.stream().mapToInt(Integer::intValue).toArray();
        double[][] x = new double[steps.length][];
        Ciphertext[] cx = new Ciphertext[steps.length];
        double[] expected = new double[slots];
        Ciphertext added = null;
        for (int k = 0; k < steps.length; k++) {
            x[k] = randomVector(slots);
            cx[k] = encrypt(x[k]);
            double[] r = rotateLeft(x[k], steps[k]);
            for (int i = 0; i < slots; i++) {
                expected[i] += r[i];
            }
            Ciphertext rk = evaluator.rotate(cx[k], steps[k]);
            added = added == null ? rk : evaluator.add(added, rk);
        }
        Ciphertext summed = evaluator.rotateSum(cx, steps);
        assertEquals(cx[0].level(), summed.level());
        assertEquals(cx[0].scale(), summed.scale());
        double[] viaSum = decrypt(summed);
        assertPrecision("rotateSum", expected, viaSum);
        assertPrecision("rotateSum", decrypt(added), viaSum);
        assertThrows(IllegalArgumentException.class, () -> evaluator.rotateSum(cx, new int[] {1}));
        assertThrows(IllegalArgumentException.class, () -> evaluator.rotateSum(new Ciphertext[0], new int[0]));
    }

    /**
     * Giant steps summed and rescaled at once: products not yet rescaled (constants times ciphertexts), rotated,
     * summed and rescaled, equal to rotateSum then rescale in level, scale and values, with an error no larger than
     * theirs (a fused division still rounds as a rescale does); all steps 0, and level 0, too.
     */
    @Test
    public void rotationsSummedAndRescaledEqualRotationsSummedThenRescaled() {
        List<Integer> list = new ArrayList<>(randomSteps());
        list.add(0);
        int[] steps = list.stream().mapToInt(Integer::intValue).toArray();
        double[] expected = new double[slots];
        Ciphertext[] raw = new Ciphertext[steps.length];
        for (int k = 0; k < steps.length; k++) {
            double[] x = randomVector(slots);
            double c = 0.25 + 0.5 * k / steps.length;
            raw[k] = evaluator.multiplyConstant(encrypt(x), c);
            double[] r = rotateLeft(x, steps[k]);
            for (int i = 0; i < slots; i++) {
                expected[i] += c * r[i];
            }
        }
        Ciphertext fused = evaluator.rotateSumAndRescale(raw, steps);
        Ciphertext apart = evaluator.rescale(evaluator.rotateSum(raw, steps));
        assertEquals(apart.level(), fused.level());
        assertEquals(raw[0].level() - 1, fused.level());
        assertEquals(apart.scale(), fused.scale(), "the same scale as rotateSum then rescale");
        double[] viaFused = decrypt(fused);
        double[] viaApart = decrypt(apart);
        assertPrecision("rotateSumAndRescale", expected, viaFused);
        assertPrecision("rotateSumAndRescale", viaApart, viaFused);
        double errFused = 0;
        double errApart = 0;
        for (int i = 0; i < slots; i++) {
            errFused = Math.max(errFused, Math.abs(viaFused[i] - expected[i]));
            errApart = Math.max(errApart, Math.abs(viaApart[i] - expected[i]));
        }
        assertTrue(
                errFused <= 1.5 * errApart + 1e-9,
                "rotateSumAndRescale errs " + errFused + " against rotateSum " + "then rescale's " + errApart);
        // nothing to rotate: the sum rescaled
        Ciphertext still = evaluator.rotateSumAndRescale(new Ciphertext[] {raw[0], raw[1]}, new int[] {0, 0});
        assertPrecision(
                "rotateSumAndRescale of steps 0",
                decrypt(evaluator.rescale(evaluator.add(raw[0], raw[1]))),
                decrypt(still));
        Ciphertext spent = evaluator.dropToLevel(encrypt(randomVector(slots)), 0);
        assertThrows(
                HeException.class,
                () -> evaluator.rotateSumAndRescale(new Ciphertext[] {spent, spent}, new int[] {steps[0], 0}));
        assertThrows(IllegalArgumentException.class, () -> evaluator.rotateSumAndRescale(raw, new int[] {1}));
    }

    @Test
    public void conjugationOfComplexSlots() {
        double[] re = randomVector(slots);
        double[] im = randomVector(slots);
        Ciphertext c = encryptor.encrypt(encoder.encodeComplex(re, im, slots, maxLevel, scale));
        double[][] out = encoder.decodeComplex(decryptor.decrypt(evaluator.conjugate(c)));
        double[] negIm = new double[slots];
        for (int i = 0; i < slots; i++) {
            negIm[i] = -im[i];
        }
        assertPrecision("conjugate", re, out[0]);
        assertPrecision("conjugate", negIm, out[1]);
    }

    /**
     * A product by i encoded at scale 1 (the monomial X^(N/2)) keeps the level and the scale and loses no precision:
     * the engine packs two real vectors as x + i·y with it ({@code RowShifts}), and takes the real part back with a
     * conjugation.
     */
    @Test
    public void aProductByIAtScaleOneIsExact() {
        double[] x = randomVector(slots);
        double[] y = randomVector(slots);
        Ciphertext cy = encrypt(y);
        double[] one = new double[slots];
        java.util.Arrays.fill(one, 1.0);
        Ciphertext iy =
                evaluator.multiplyPlain(cy, encoder.encodeComplex(new double[slots], one, slots, maxLevel, 1.0));
        assertEquals(cy.level(), iy.level(), "a product by i takes no level");
        assertEquals(cy.scale(), iy.scale(), cy.scale() * 1e-12, "nor changes the scale");
        Ciphertext z = evaluator.add(encrypt(x), iy);
        double[][] out = encoder.decodeComplex(decryptor.decrypt(z));
        assertPrecision("x + i·y, real part", x, out[0]);
        assertPrecision("x + i·y, imaginary part", y, out[1]);
        double[] twiceX = new double[slots];
        for (int i = 0; i < slots; i++) {
            twiceX[i] = 2 * x[i];
        }
        assertPrecision("z + conj(z)", twiceX, decrypt(evaluator.add(z, evaluator.conjugate(z))));
    }

    @Test
    public void missingRotationKeyFailsUnlessOnDemand() {
        EvaluationKeys few = context.generateEvaluationKeys(secretKey, Set.of(1), false, false);
        Evaluator strict = context.evaluator(few);
        double[] x = randomVector(slots);
        Ciphertext cx = encrypt(x);
        int step = 3;
        assertThrows(HeException.class, () -> strict.rotate(cx, step));
        assertThrows(HeException.class, () -> strict.conjugate(cx));
        Evaluator onDemand = context.evaluator(few, secretKey);
        assertPrecision("rotate", rotateLeft(x, step), decrypt(onDemand.rotate(cx, step)));
    }

    // ---- misuse --------------------------------------------------------------------------------------------

    @Test
    public void scaleMismatchIsRefusedNamingBothScales() {
        Ciphertext a = encrypt(randomVector(slots));
        Ciphertext squared = evaluator.multiply(a, a); // scale Δ², same level
        HeException e = assertThrows(HeException.class, () -> evaluator.add(a, squared));
        assertTrue(e.getMessage().contains("scale"), e.getMessage());
        assertThrows(HeException.class, () -> evaluator.sub(squared, a));
        Plaintext p = encoder.encode(randomVector(slots), slots, maxLevel, scale * 4);
        assertThrows(HeException.class, () -> evaluator.addPlain(a, p));
    }

    @Test
    public void anotherKeySetIsRefusedBeforeArithmetic() throws IOException {
        SecretKey other = context.generateSecretKey();
        assertFalse(other.keySetId().equals(secretKey.keySetId()), "key-set ids are distinct");
        Ciphertext foreign = context.encryptor(context.generatePublicKey(other))
                .encrypt(encoder.encode(randomVector(slots), slots, maxLevel, scale));
        Ciphertext mine = encrypt(randomVector(slots));
        assertThrows(HeException.class, () -> evaluator.add(mine, foreign));
        assertThrows(HeException.class, () -> evaluator.multiply(foreign, mine));
        assertThrows(HeException.class, () -> evaluator.rotate(foreign, 1));
        assertThrows(HeException.class, () -> decryptor.decrypt(foreign));
        HeSerializer ser = context.serializer();
        byte[] blob = bytes(out -> ser.writeCiphertext(foreign, out));
        Ciphertext readBack = ser.readCiphertext(new ByteArrayInputStream(blob));
        assertEquals(other.keySetId(), readBack.keySetId());
        assertThrows(HeException.class, () -> evaluator.add(mine, readBack));
        assertThrows(HeException.class, () -> decryptor.decrypt(readBack));
    }

    @Test
    public void anotherParameterSetIsRefused() throws IOException {
        try (HeContext other = backend().open(otherParameters())) {
            assertFalse(other.parameterHash().equals(context.parameterHash()), "parameter hashes differ");
            SecretKey sk = other.generateSecretKey();
            Ciphertext foreign = other.encryptor(sk)
                    .encrypt(other.encoder()
                            .encode(
                                    new double[] {0.5},
                                    1,
                                    other.parameters().maxLevel(),
                                    other.parameters().scale()));
            Ciphertext mine = encrypt(randomVector(slots));
            assertThrows(HeException.class, () -> evaluator.add(mine, foreign));
            assertThrows(HeException.class, () -> decryptor.decrypt(foreign));
            byte[] ctBlob = bytes(out -> other.serializer().writeCiphertext(foreign, out));
            HeException e = assertThrows(
                    HeException.class, () -> context.serializer().readCiphertext(new ByteArrayInputStream(ctBlob)));
            assertTrue(
                    e.getMessage().contains(other.parameterHash()), "names the blob's parameters: " + e.getMessage());
            byte[] skBlob = bytes(out -> other.serializer().writeSecretKey(sk, out));
            assertThrows(HeException.class, () -> context.serializer().readSecretKey(new ByteArrayInputStream(skBlob)));
            Plaintext otherPt = other.encoder()
                    .encode(new double[] {1}, 1, 0, other.parameters().scale());
            assertThrows(HeException.class, () -> evaluator.multiplyPlain(mine, otherPt));
        }
    }

    @Test
    public void insecureParametersNeedTheExplicitOptIn() {
        CkksParameters p = parameters();
        List<Integer> big = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            big.add(55);
        }
        CkksParameters weak = new CkksParameters(p.logN(), big, List.of(55), 2, p.logScale(), 0, SecurityLevel.HES_128);
        InsecureParametersException e =
                assertThrows(InsecureParametersException.class, () -> backend().open(weak));
        assertTrue(e.getMessage().contains("insecure-test"), "the message names the opt-in: " + e.getMessage());
        CkksParameters small = new CkksParameters(10, List.of(40, 30), List.of(45), 2, 30, 0, SecurityLevel.HES_128);
        assertThrows(InsecureParametersException.class, () -> backend().open(small));
        CkksParameters optedIn =
                new CkksParameters(10, List.of(40, 30), List.of(45), 2, 30, 0, SecurityLevel.INSECURE_TEST);
        try (HeContext c = backend().open(optedIn)) {
            assertEquals(optedIn, c.parameters());
        }
    }

    /**
     * log2(QP) bounds at 128 bits (ternary secret, classical) for N = 2^10 .. 2^17, as published: the Homomorphic
     * Encryption Security Standard's table (homomorphicencryption.org, November 2018) up to 2^15, OpenFHE's
     * HEStd_128_classic ternary rows for 2^16 and 2^17. Written here from the sources, not from any backend.
     */
    private static final int[] MAX_LOG_QP_128 = {27, 54, 109, 218, 438, 881, 1747, 3523};

    @Test
    public void presetsAreListedAndSecureOnesFitTheStandard() {
        List<String> presets = backend().presets();
        assertFalse(presets.isEmpty());
        for (String name : presets) {
            CkksParameters p = backend().preset(name);
            if (p.security() == SecurityLevel.HES_128) {
                assertTrue(p.logN() >= 10 && p.logN() <= 17, name + ": logN = " + p.logN());
                int bound = MAX_LOG_QP_128[p.logN() - 10];
                assertTrue(p.logQP() <= bound, name + ": log QP = " + p.logQP() + " exceeds " + bound);
            }
        }
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> backend().preset("no-such"));
        assertTrue(e.getMessage().contains(presets.get(0)), "lists the known presets: " + e.getMessage());
    }

    @Test
    public void secretKeyIsNotPrinted() throws IOException {
        byte[] blob = bytes(out -> context.serializer().writeSecretKey(secretKey, out));
        String s = secretKey.toString();
        assertTrue(s.length() < 200, "toString of a secret key is short: " + s.length() + " characters");
        assertTrue(blob.length > context.parameters().ringDegree() / 8, "the explicit call writes the key");
    }

    // ---- serialization -------------------------------------------------------------------------------------

    @Test
    public void serializationRoundTrips() throws IOException {
        HeSerializer ser = context.serializer();
        CkksParameters p =
                ser.readParameters(new ByteArrayInputStream(bytes(out -> ser.writeParameters(parameters(), out))));
        assertEquals(parameters(), p);

        double[] x = randomVector(slots);
        double[] y = randomVector(slots);
        Ciphertext cx = encrypt(x);
        Ciphertext cx2 = ser.readCiphertext(new ByteArrayInputStream(bytes(out -> ser.writeCiphertext(cx, out))));
        assertEquals(cx.level(), cx2.level());
        assertEquals(cx.scale(), cx2.scale());
        assertEquals(cx.slots(), cx2.slots());
        assertEquals(cx.keySetId(), cx2.keySetId());
        assertArrayEqualsExactly(decrypt(cx), decrypt(cx2));

        Plaintext py = encoder.encode(y, slots, maxLevel - 1, scale);
        Plaintext py2 = ser.readPlaintext(new ByteArrayInputStream(bytes(out -> ser.writePlaintext(py, out))));
        assertEquals(py.level(), py2.level());
        assertArrayEqualsExactly(encoder.decode(py), encoder.decode(py2));

        PublicKey pk2 = ser.readPublicKey(new ByteArrayInputStream(bytes(out -> ser.writePublicKey(publicKey, out))));
        assertEquals(publicKey.keySetId(), pk2.keySetId());
        assertPrecision(
                "encrypt-pk", x, decrypt(context.encryptor(pk2).encrypt(encoder.encode(x, slots, maxLevel, scale))));

        SecretKey sk2 = ser.readSecretKey(new ByteArrayInputStream(bytes(out -> ser.writeSecretKey(secretKey, out))));
        assertEquals(secretKey.keySetId(), sk2.keySetId());
        assertArrayEqualsExactly(
                decrypt(cx), encoder.decode(context.decryptor(sk2).decrypt(cx)));

        EvaluationKeys small = context.generateEvaluationKeys(secretKey, Set.of(5), true, false);
        EvaluationKeys ek2 =
                ser.readEvaluationKeys(new ByteArrayInputStream(bytes(out -> ser.writeEvaluationKeys(small, out))));
        assertEquals(small.rotationSteps(), ek2.rotationSteps());
        assertEquals(small.hasConjugation(), ek2.hasConjugation());
        assertEquals(small.keySetId(), ek2.keySetId());
        assertEquals(small.relinearizationKeyBytes(), ek2.relinearizationKeyBytes());
        Evaluator ev2 = context.evaluator(ek2);
        double[] prod = new double[slots];
        for (int i = 0; i < slots; i++) {
            prod[i] = x[i] * y[i];
        }
        assertPrecision("multiply", prod, decrypt(ev2.rescale(ev2.multiply(cx2, encrypt(y)))));
        assertPrecision("rotate", rotateLeft(x, 5), decrypt(ev2.rotate(cx2, 5)));
    }

    private static void assertArrayEqualsExactly(double[] a, double[] b) {
        org.junit.jupiter.api.Assertions.assertArrayEquals(a, b, "a round trip changes nothing");
    }

    @Test
    public void corruptedTruncatedAndMislabelledBlobsAreRefused() throws IOException {
        HeSerializer ser = context.serializer();
        Ciphertext cx = encrypt(randomVector(slots));
        byte[] blob = bytes(out -> ser.writeCiphertext(cx, out));
        Random r = new Random(3);
        for (int trial = 0; trial < 8; trial++) {
            byte[] bad = blob.clone();
            int at = trial == 0 ? 0 : trial == 1 ? blob.length - 1 : r.nextInt(blob.length);
            bad[at] ^= (byte) (1 << r.nextInt(8));
            HeException e = assertThrows(
                    HeException.class,
                    () -> ser.readCiphertext(new ByteArrayInputStream(bad)),
                    "a flipped bit at byte " + at + " is detected");
            assertFalse(e.getMessage().isBlank());
        }
        byte[] truncated = Arrays.copyOf(blob, blob.length / 2);
        assertThrows(HeException.class, () -> ser.readCiphertext(new ByteArrayInputStream(truncated)));
        assertThrows(
                HeException.class,
                () -> ser.readPlaintext(new ByteArrayInputStream(blob)),
                "a ciphertext blob is not a plaintext");
        assertThrows(HeException.class, () -> ser.readCiphertext(new ByteArrayInputStream(new byte[64])));
        byte[] pkBlob = bytes(out -> ser.writePublicKey(publicKey, out));
        assertThrows(HeException.class, () -> ser.readEvaluationKeys(new ByteArrayInputStream(pkBlob)));
    }

    @Test
    public void evaluationKeysAreCheckedToTheirEndAndRefusedAsReadingRefusesThem() throws IOException {
        HeSerializer ser = context.serializer();
        EvaluationKeys small = context.generateEvaluationKeys(secretKey, Set.of(5), true, false);
        byte[] blob = bytes(out -> ser.writeEvaluationKeys(small, out));
        byte[] longer = Arrays.copyOf(blob, blob.length + 5);
        ByteArrayInputStream in = new ByteArrayInputStream(longer);
        ser.checkEvaluationKeys(in);
        assertEquals(5, in.available(), "read to the end of the blob, and no further");
        Random r = new Random(5);
        for (int trial = 0; trial < 4; trial++) {
            byte[] bad = blob.clone();
            int at = trial == 0 ? 0 : trial == 1 ? blob.length - 1 : r.nextInt(blob.length);
            bad[at] ^= (byte) (1 << r.nextInt(8));
            assertThrows(HeException.class, () -> ser.readEvaluationKeys(new ByteArrayInputStream(bad)));
            HeException e = assertThrows(
                    HeException.class,
                    () -> ser.checkEvaluationKeys(new ByteArrayInputStream(bad)),
                    "a flipped bit at byte " + at + " is detected");
            assertFalse(e.getMessage().isBlank());
        }
        byte[] truncated = Arrays.copyOf(blob, blob.length / 2);
        assertThrows(HeException.class, () -> ser.checkEvaluationKeys(new ByteArrayInputStream(truncated)));
        byte[] pkBlob = bytes(out -> ser.writePublicKey(publicKey, out));
        assertThrows(HeException.class, () -> ser.checkEvaluationKeys(new ByteArrayInputStream(pkBlob)));
    }

    @Test
    public void blobsAreSelfDelimitedInOneStream() throws IOException {
        HeSerializer ser = context.serializer();
        double[] x = randomVector(slots);
        double[] y = randomVector(slots);
        Ciphertext a = encrypt(x);
        Ciphertext b = encrypt(y);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ser.writeCiphertext(a, out);
        ser.writeCiphertext(b, out);
        ByteArrayInputStream in = new ByteArrayInputStream(out.toByteArray());
        Ciphertext a2 = ser.readCiphertext(in);
        Ciphertext b2 = ser.readCiphertext(in);
        assertEquals(0, in.available());
        assertPrecision("encrypt-pk", x, decrypt(a2));
        assertPrecision("encrypt-pk", y, decrypt(b2));
    }
}
