package dev.polyhe.launcher.fuzz;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Mutations of a real file's bytes for fuzzing parsers: bit flips, random bytes, interesting integers written over
 * (0, −1, the extremes, large powers of two, in both byte orders), truncations, deletions and duplicated runs; for
 * JSON also a number or a string replaced by an odd value. A few at a time, so that most inputs stay close enough to
 * the format to reach deep into the parser.
 */
final class Mutations {
    private static final long[] INTERESTING = {
        0,
        1,
        -1,
        2,
        255,
        256,
        65_535,
        65_536,
        Integer.MAX_VALUE,
        Integer.MIN_VALUE,
        1L << 31,
        1L << 32,
        Long.MAX_VALUE,
        Long.MIN_VALUE,
        1L << 40,
        -5,
        100_000_000
    };
    private static final String[] JSON_VALUES = {
        "-1",
        "0",
        "1e308",
        "-1e308",
        "9223372036854775807",
        "99999999999",
        "null",
        "true",
        "\"x\"",
        "[]",
        "{}",
        "[[[[[[[[[[1]]]]]]]]]]",
        "\"\"",
        "1.5",
        "[\"a\"]",
        "[1,2,3]"
    };
    private static final Pattern JSON_TOKEN = Pattern.compile("-?\\d+(\\.\\d+)?([eE][-+]?\\d+)?|\"[^\"]*\"");

    private Mutations() {}

    static byte[] mutate(byte[] seed, Random r) {
        byte[] b = seed.clone();
        int n = 1 + r.nextInt(6);
        for (int i = 0; i < n && b.length > 0; i++) {
            int at = r.nextInt(b.length);
            switch (r.nextInt(7)) {
                case 0 -> b[at] ^= (byte) (1 << r.nextInt(8));
                case 1 -> b[at] = (byte) r.nextInt(256);
                case 2, 3 -> {
                    int width = r.nextBoolean() ? 4 : 8;
                    if (at + width <= b.length) {
                        ByteBuffer bb = ByteBuffer.wrap(b, at, width)
                                .order(r.nextBoolean() ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN);
                        long v = INTERESTING[r.nextInt(INTERESTING.length)];
                        if (width == 4) {
                            bb.putInt((int) v);
                        } else {
                            bb.putLong(v);
                        }
                    }
                }
                case 4 -> b = Arrays.copyOf(b, at);
                case 5 -> {
                    int len = Math.min(b.length - at, 1 + r.nextInt(64));
                    byte[] out = new byte[b.length - len];
                    System.arraycopy(b, 0, out, 0, at);
                    System.arraycopy(b, at + len, out, at, b.length - at - len);
                    b = out;
                }
                default -> {
                    int len = Math.min(b.length - at, 1 + r.nextInt(64));
                    byte[] out = new byte[b.length + len];
                    System.arraycopy(b, 0, out, 0, at + len);
                    System.arraycopy(b, at, out, at + len, b.length - at);
                    b = out;
                }
            }
        }
        return b;
    }

    static String mutateJson(String seed, Random r) {
        if (r.nextInt(3) > 0) {
            return new String(mutate(seed.getBytes(StandardCharsets.UTF_8), r), StandardCharsets.UTF_8);
        }
        Matcher m = JSON_TOKEN.matcher(seed);
        List<int[]> spans = new ArrayList<>();
        while (m.find()) {
            spans.add(new int[] {m.start(), m.end()});
        }
        if (spans.isEmpty()) {
            return seed;
        }
        int[] s = spans.get(r.nextInt(spans.size()));
        return seed.substring(0, s[0]) + JSON_VALUES[r.nextInt(JSON_VALUES.length)] + seed.substring(s[1]);
    }
}
