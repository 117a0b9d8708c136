package dev.polyhe.launcher;

import dev.polyhe.core.engine.encrypted.OperatorKind;
import dev.polyhe.core.engine.encrypted.PrimitiveKind;
import dev.polyhe.core.report.LatencyBreakdown;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The breakdown chart as PNG, with java.desktop: loaded only when a PNG is asked for and that module is there. */
final class BreakdownPng {
    private BreakdownPng() {}

    /** The same two bar charts as the SVG (operator kinds, HE primitives, shares of the total time). */
    static byte[] draw(LatencyBreakdown b) throws IOException {
        System.setProperty("java.awt.headless", "true");
        List<Object[]> kinds = rows(b.secondsByOperatorKind(), OperatorKind.values());
        List<Object[]> prims = rows(b.secondsByPrimitive(), PrimitiveKind.values());
        int rowH = 22;
        int width = 760;
        int height = 90 + (kinds.size() + prims.size()) * rowH + 60;
        var image = new java.awt.image.BufferedImage(width, height, java.awt.image.BufferedImage.TYPE_INT_RGB);
        var g = image.createGraphics();
        try {
            g.setRenderingHint(java.awt.RenderingHints.KEY_ANTIALIASING, java.awt.RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(
                    java.awt.RenderingHints.KEY_TEXT_ANTIALIASING, java.awt.RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(java.awt.Color.WHITE);
            g.fillRect(0, 0, width, height);
            g.setColor(java.awt.Color.BLACK);
            g.setFont(new java.awt.Font(java.awt.Font.SANS_SERIF, java.awt.Font.BOLD, 17));
            g.drawString(String.format(Locale.ROOT, "Encrypted inference latency: %.2f s", b.totalSeconds()), 20, 28);
            int y = bars(g, b.totalSeconds(), "Share of time by operator kind", kinds, 60, rowH, 0x3b6ea8);
            bars(g, b.totalSeconds(), "Share of time by HE primitive", prims, y + 20, rowH, 0xc0504d);
        } finally {
            g.dispose();
        }
        var out = new java.io.ByteArrayOutputStream();
        javax.imageio.ImageIO.write(image, "png", out);
        return out.toByteArray();
    }

    private static <K extends Enum<K>> List<Object[]> rows(Map<K, Double> seconds, K[] all) {
        List<Object[]> rows = new ArrayList<>();
        for (K k : all) {
            String label = k instanceof OperatorKind o ? o.label() : ((PrimitiveKind) k).label();
            rows.add(new Object[] {label, seconds.getOrDefault(k, 0.0)});
        }
        return rows;
    }

    private static int bars(
            java.awt.Graphics2D g, double total, String title, List<Object[]> rows, int y, int rowH, int rgb) {
        g.setColor(java.awt.Color.BLACK);
        g.setFont(new java.awt.Font(java.awt.Font.SANS_SERIF, java.awt.Font.BOLD, 13));
        g.drawString(title, 20, y);
        g.setFont(new java.awt.Font(java.awt.Font.SANS_SERIF, java.awt.Font.PLAIN, 13));
        y += 10;
        int barX = 220;
        int barMax = 420;
        for (Object[] r : rows) {
            double seconds = (Double) r[1];
            double pct = total <= 0 ? 0 : 100 * seconds / total;
            int w = Math.max(1, (int) Math.round(barMax * Math.min(100, pct) / 100));
            g.setColor(java.awt.Color.BLACK);
            g.drawString((String) r[0], 20, y + 15);
            g.setColor(new java.awt.Color(rgb));
            g.fillRect(barX, y + 3, w, rowH - 6);
            g.setColor(java.awt.Color.BLACK);
            g.drawString(String.format(Locale.ROOT, "%.1f%% (%.3f s)", pct, seconds), barX + w + 6, y + 15);
            y += rowH;
        }
        return y;
    }
}
