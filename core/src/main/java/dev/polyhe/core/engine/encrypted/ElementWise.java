package dev.polyhe.core.engine.encrypted;

import dev.polyhe.api.he.Ciphertext;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BinaryOperator;
import java.util.function.UnaryOperator;

/**
 * A function applied to every ciphertext of a tensor, or to every pair of two tensors' ciphertexts in one packing:
 * each distinct ciphertext (pair) once, and the distinct ones at once where the work is worth it.
 */
final class ElementWise {
    private final EncryptedEngine engine;
    private final LayoutOps layoutOps;

    /** @param engine which runs independent tasks and matches its operands' packings */
    ElementWise(EncryptedEngine engine, LayoutOps layoutOps) {
        this.engine = engine;
        this.layoutOps = layoutOps;
    }

    private static void sameShape(EncryptedTensor a, EncryptedTensor b, String op) {
        if (a.layout != b.layout
                || a.rows != b.rows
                || a.cols != b.cols
                || a.perCiphertext != b.perCiphertext
                || !Objects.equals(a.heads, b.heads)) {
            throw new IllegalArgumentException(op + ": operands differ, " + a + " vs " + b);
        }
    }
    /**
     * Applies {@code f} to every ciphertext. A ciphertext shared by several positions (the replicated result of
     * a row sum) is processed once: a Goldschmidt division of row sums costs one ciphertext, not one per column.
     */
    EncryptedTensor map(EncryptedTensor a, boolean clean, UnaryOperator<Ciphertext> f) {
        return map(a, clean, false, f);
    }
    /**
     * {@link #map}; {@code atOnce}: f multiplies, enough work per ciphertext to run the distinct ones as independent
     * tasks ({@link EncryptedEngine#independently}; one that would refresh runs again on this thread, with those after
     * it).
     */
    EncryptedTensor map(EncryptedTensor a, boolean clean, boolean atOnce, UnaryOperator<Ciphertext> f) {
        Map<Ciphertext, Ciphertext> done = new IdentityHashMap<>();
        if (atOnce) {
            List<Ciphertext> distinct = new ArrayList<>();
            for (Ciphertext c : a.cts) {
                if (!done.containsKey(c)) {
                    done.put(c, null);
                    distinct.add(c);
                }
            }
            engine.independently(
                    distinct.size(), i -> f.apply(distinct.get(i)), (r, i) -> done.put(distinct.get(i), r));
        }
        Ciphertext[] out = new Ciphertext[a.cts.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = done.computeIfAbsent(a.cts[i], f);
        }
        return a.with(out, clean);
    }

    EncryptedTensor zip(
            EncryptedTensor first, EncryptedTensor second, String op, boolean clean, BinaryOperator<Ciphertext> f) {
        return zip(first, second, op, clean, false, f);
    }
    /** {@link #zip}; {@code atOnce} as for {@link #map(EncryptedTensor, boolean, boolean, UnaryOperator)}. */
    EncryptedTensor zip(
            EncryptedTensor first,
            EncryptedTensor second,
            String op,
            boolean clean,
            boolean atOnce,
            BinaryOperator<Ciphertext> f) {
        // Blocks meet columns where a rotary embedding recombines unpacked columns: both as columns then.
        boolean mixed = first.layout != second.layout;
        EncryptedTensor[] matched = mixed
                ? new EncryptedTensor[] {layoutOps.asColumns(first), layoutOps.asColumns(second)}
                : engine.matched(first, second);
        EncryptedTensor a = matched[0];
        EncryptedTensor b = matched[1];
        sameShape(a, b, op);
        Map<Ciphertext, Map<Ciphertext, Ciphertext>> done = new IdentityHashMap<>();
        if (atOnce) {
            List<Integer> distinct = new ArrayList<>(); // positions of the pairs' first appearances
            for (int i = 0; i < a.cts.length; i++) {
                Map<Ciphertext, Ciphertext> withX = done.computeIfAbsent(a.cts[i], k -> new IdentityHashMap<>());
                if (!withX.containsKey(b.cts[i])) {
                    withX.put(b.cts[i], null);
                    distinct.add(i);
                }
            }
            engine.independently(
                    distinct.size(),
                    j -> f.apply(a.cts[distinct.get(j)], b.cts[distinct.get(j)]),
                    (r, j) -> done.get(a.cts[distinct.get(j)]).put(b.cts[distinct.get(j)], r));
        }
        Ciphertext[] out = new Ciphertext[a.cts.length];
        for (int i = 0; i < out.length; i++) {
            Ciphertext x = a.cts[i];
            Ciphertext y = b.cts[i];
            out[i] = done.computeIfAbsent(x, k -> new IdentityHashMap<>()).computeIfAbsent(y, k -> f.apply(x, y));
        }
        return a.with(out, clean);
    }
}
