package dev.polyhe.models.tokenizer;

/**
 * GPT-2's reversible map from bytes to printable code points: printable Latin-1 bytes stand for themselves,
 * the others (controls, space, …) are shifted to 256 + n, so every byte string becomes a visible string that
 * BPE can merge and no byte is lost.
 */
final class ByteLevelAlphabet {
    private static final char[] BYTE_TO_CHAR = new char[256];
    private static final int[] CHAR_TO_BYTE = new int[512];

    static {
        java.util.Arrays.fill(CHAR_TO_BYTE, -1);
        int n = 0;
        for (int b = 0; b < 256; b++) {
            boolean printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            char c = printable ? (char) b : (char) (256 + n++);
            BYTE_TO_CHAR[b] = c;
            CHAR_TO_BYTE[c] = b;
        }
    }

    private ByteLevelAlphabet() {}

    static String encode(byte[] bytes) {
        StringBuilder sb = new StringBuilder(bytes.length);
        for (byte b : bytes) {
            sb.append(BYTE_TO_CHAR[b & 0xff]);
        }
        return sb.toString();
    }

    /** Back to bytes; characters outside the alphabet (added tokens' text) are kept as UTF-8. */
    static byte[] decode(String s) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < CHAR_TO_BYTE.length && CHAR_TO_BYTE[c] >= 0) {
                out.write(CHAR_TO_BYTE[c]);
            } else {
                byte[] u = String.valueOf(c).getBytes(java.nio.charset.StandardCharsets.UTF_8);
                out.write(u, 0, u.length);
            }
        }
        return out.toByteArray();
    }
}
