package io.pointsinbox.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.imageio.ImageIO;

/** A small line chart drawn with java.awt, so the benchmark needs nothing beyond the JDK to produce its PNG. */
final class Chart {

    private static final Color[] COLORS = { new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c),
            new Color(0xff7f0e) };

    private Chart() {
    }

    /** One line per series; x values are the same for every series. */
    static void write(Path file, String title, String xLabel, String yLabel, List<Integer> xs,
            LinkedHashMap<String, List<Double>> series) throws IOException {
        int width = 1040;
        int height = 540;
        int left = 90;
        int right = 300;
        int top = 60;
        int bottom = 70;
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, width, height);
        double max = series.values().stream().flatMap(List::stream).mapToDouble(Double::doubleValue).max().orElse(1);
        max = Math.ceil(max * 1.15 / 100) * 100;
        int plotW = width - left - right;
        int plotH = height - top - bottom;
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
        g.drawString(title, left, 35);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        g.drawLine(left, top + plotH, left + plotW, top + plotH);
        g.drawLine(left, top, left, top + plotH);
        for (int i = 0; i <= 5; i++) {
            int y = top + plotH - i * plotH / 5;
            g.setColor(new Color(0xdddddd));
            g.drawLine(left + 1, y, left + plotW, y);
            g.setColor(Color.BLACK);
            g.drawString(String.format("%.0f", max * i / 5), left - 55, y + 4);
        }
        for (int i = 0; i < xs.size(); i++) {
            int x = xPosition(i, xs.size(), left, plotW);
            g.drawString(String.valueOf(xs.get(i)), x - 6, top + plotH + 20);
        }
        g.drawString(xLabel, left + plotW / 2 - 60, height - 25);
        g.drawString(yLabel, 10, top - 15);
        int legendY = top + 10;
        int colour = 0;
        for (Map.Entry<String, List<Double>> entry : series.entrySet()) {
            g.setColor(COLORS[colour++ % COLORS.length]);
            g.setStroke(new BasicStroke(2.5f));
            List<Double> ys = entry.getValue();
            for (int i = 0; i < ys.size(); i++) {
                int x = xPosition(i, xs.size(), left, plotW);
                int y = (int) (top + plotH - ys.get(i) / max * plotH);
                g.fillOval(x - 4, y - 4, 8, 8);
                if (i > 0) {
                    int px = xPosition(i - 1, xs.size(), left, plotW);
                    int py = (int) (top + plotH - ys.get(i - 1) / max * plotH);
                    g.drawLine(px, py, x, y);
                }
            }
            g.drawLine(left + plotW + 20, legendY, left + plotW + 45, legendY);
            g.setColor(Color.BLACK);
            g.drawString(entry.getKey(), left + plotW + 52, legendY + 4);
            legendY += 22;
        }
        g.dispose();
        ImageIO.write(image, "png", file.toFile());
    }

    private static int xPosition(int index, int count, int left, int plotW) {
        return count == 1 ? left + plotW / 2 : left + 30 + index * (plotW - 60) / (count - 1);
    }
}
