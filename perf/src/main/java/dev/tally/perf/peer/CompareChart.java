package dev.tally.perf.peer;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * Draws a compare run as a PNG (java.awt in headless mode, no chart library): on the left the throughput per
 * scenario of Tally as a whole (read model on), Tally's request path (read model off) and the peer, on the right
 * their latency percentiles (p50, p99, p99.9), both on logarithmic axes because the designs differ by orders of
 * magnitude. A run that failed its check is drawn as the word FAILED, never as a bar; a system that did not run
 * is left out.
 */
final class CompareChart
{
    private static final int WIDTH_PX = 1600;
    private static final int HEIGHT_PX = 640;
    private static final int MARGIN_LEFT_PX = 90;
    private static final int MARGIN_TOP_PX = 95;
    private static final int MARGIN_BOTTOM_PX = 110;
    private static final Color TALLY = new Color(0x1f4e99);
    private static final Color REQUEST_PATH = new Color(0x6fa8dc);
    private static final Color PEER = new Color(0xff7f0e);
    private static final Color GRID = new Color(0xdddddd);

    private CompareChart()
    {
    }

    /** Writes the chart of one durability mode to {@code file}; with several rounds, {@code rows} are their medians. */
    static void draw(final List<CompareReport.Row> rows, final String mode, final int rounds, final Path file) throws IOException
    {
        final BufferedImage image = new BufferedImage(WIDTH_PX, HEIGHT_PX, BufferedImage.TYPE_INT_RGB);
        final Graphics2D g = image.createGraphics();
        try
        {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, WIDTH_PX, HEIGHT_PX);
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 18));
            g.drawString("Tally vs PostgreSQL-per-request peer (" + (rows.isEmpty() ? "" : rows.get(0).peerVariant()) + "), durability " + mode +
                ("sync".equals(mode) ? " (Tally sync vs synchronous_commit=on)" : " (Tally async vs synchronous_commit=off)") +
                (rounds > 1 ? ", median of " + rounds + " rounds" : ""), 20, 30);
            legend(g);
            final int panelWidthPx = (WIDTH_PX - 2 * MARGIN_LEFT_PX - 40) / 2;
            throughputPanel(g, rows, MARGIN_LEFT_PX, panelWidthPx);
            latencyPanel(g, rows, 2 * MARGIN_LEFT_PX + panelWidthPx + 20, panelWidthPx);
        }
        finally
        {
            g.dispose();
        }
        ImageIO.write(image, "png", file.toFile());
    }

    private static void legend(final Graphics2D g)
    {
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 14));
        final int y = 55;
        int x = 20;
        x = legendEntry(g, TALLY, "Tally, whole system (read model on)", x, y);
        x = legendEntry(g, REQUEST_PATH, "Tally, request path (read model off)", x, y);
        x = legendEntry(g, PEER, "PostgreSQL per request (the peer)", x, y);
        g.drawString("latency: p50 | p99 | p99.9 per system (lighter = higher); FAILED = check failed", x, y);
    }

    private static int legendEntry(final Graphics2D g, final Color color, final String text, final int x, final int y)
    {
        g.setColor(color);
        g.fillRect(x, y - 12, 14, 14);
        g.setColor(Color.BLACK);
        g.drawString(text, x + 20, y);
        return x + 40 + g.getFontMetrics().stringWidth(text);
    }

    private static void throughputPanel(final Graphics2D g, final List<CompareReport.Row> rows, final int left, final int width)
    {
        final LogAxis axis = new LogAxis(range(rows, true));
        final int bottom = HEIGHT_PX - MARGIN_BOTTOM_PX;
        axisAndGrid(g, axis, left, width, "transfers per second (log)");
        final int groupPx = width / Math.max(1, rows.size());
        final int barPx = Math.max(8, groupPx / 5);
        for (int i = 0; i < rows.size(); i++)
        {
            final CompareReport.Row row = rows.get(i);
            final int groupLeft = left + i * groupPx + groupPx / 2 - 3 * barPx / 2 - 8;
            bar(g, axis, row.tally(), m -> m.tps(), groupLeft, barPx, TALLY, true);
            bar(g, axis, row.requestPath(), m -> m.tps(), groupLeft + barPx + 8, barPx, REQUEST_PATH, true);
            bar(g, axis, row.peer(), m -> m.tps(), groupLeft + 2 * barPx + 16, barPx, PEER, true);
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
            centered(g, row.scenario(), left + i * groupPx + groupPx / 2, bottom + 20);
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
            centered(g, "whole " + ratioText(row, row.ratio()), left + i * groupPx + groupPx / 2, bottom + 38);
            centered(g, "path " + ratioText(row, row.requestPathRatio()), left + i * groupPx + groupPx / 2, bottom + 56);
        }
    }

    private static String ratioText(final CompareReport.Row row, final double ratio)
    {
        return Double.isNaN(ratio) ? (row.ok() ? "—" : "failed") : String.format(Locale.ROOT, "%.1f×", ratio);
    }

    private static void latencyPanel(final Graphics2D g, final List<CompareReport.Row> rows, final int left, final int width)
    {
        final LogAxis axis = new LogAxis(range(rows, false));
        final int bottom = HEIGHT_PX - MARGIN_BOTTOM_PX;
        axisAndGrid(g, axis, left, width, "latency, µs (log)");
        final int groupPx = width / Math.max(1, rows.size());
        final int barPx = Math.max(3, groupPx / 12);
        for (int i = 0; i < rows.size(); i++)
        {
            final CompareReport.Row row = rows.get(i);
            int x = left + i * groupPx + groupPx / 2 - 9 * barPx / 2 - 6;
            x = percentileBars(g, axis, row.tally(), x, barPx, TALLY);
            x = percentileBars(g, axis, row.requestPath(), x + 6, barPx, REQUEST_PATH);
            percentileBars(g, axis, row.peer(), x + 6, barPx, PEER);
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
            centered(g, row.scenario(), left + i * groupPx + groupPx / 2, bottom + 20);
        }
    }

    private static int percentileBars(final Graphics2D g, final LogAxis axis, final CompareReport.Measured m, final int from, final int barPx,
        final Color color)
    {
        bar(g, axis, m, CompareReport.Measured::p50Us, from, barPx, color, false);
        bar(g, axis, m, CompareReport.Measured::p99Us, from + barPx, barPx, lighter(color, 0.35), false);
        bar(g, axis, m, CompareReport.Measured::p999Us, from + 2 * barPx, barPx, lighter(color, 0.6), false);
        return from + 3 * barPx;
    }

    private static void bar(final Graphics2D g, final LogAxis axis, final CompareReport.Measured m,
        final java.util.function.ToLongFunction<CompareReport.Measured> value, final int x, final int widthPx, final Color color,
        final boolean label)
    {
        final int bottom = HEIGHT_PX - MARGIN_BOTTOM_PX;
        if (m == null)
        {
            return;
        }
        if (!m.checkOk() || value.applyAsLong(m) <= 0)
        {
            g.setColor(Color.RED);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 12));
            final java.awt.geom.AffineTransform saved = g.getTransform();
            g.rotate(-Math.PI / 2, x + widthPx / 2.0 + 4, bottom - 8);
            g.drawString("FAILED", x + widthPx / 2 + 4, bottom - 8);
            g.setTransform(saved);
            return;
        }
        final int top = axis.y(value.applyAsLong(m), MARGIN_TOP_PX, bottom);
        g.setColor(color);
        g.fillRect(x, top, widthPx, bottom - top);
        if (label)
        {
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
            centered(g, String.format(Locale.ROOT, "%,d", value.applyAsLong(m)), x + widthPx / 2, top - 4);
        }
    }

    private static void axisAndGrid(final Graphics2D g, final LogAxis axis, final int left, final int width, final String title)
    {
        final int bottom = HEIGHT_PX - MARGIN_BOTTOM_PX;
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        for (int exponent = axis.lowExponent; exponent <= axis.highExponent; exponent++)
        {
            final int y = axis.y(Math.pow(10, exponent), MARGIN_TOP_PX, bottom);
            g.setColor(GRID);
            g.setStroke(new BasicStroke(1f));
            g.drawLine(left, y, left + width, y);
            g.setColor(Color.DARK_GRAY);
            final String text = exponent >= 6 ? (long)Math.pow(10, exponent - 6) + "M" : exponent >= 3 ? (long)Math.pow(10, exponent - 3) + "k" :
                Long.toString((long)Math.pow(10, exponent));
            final FontMetrics metrics = g.getFontMetrics();
            g.drawString(text, left - 8 - metrics.stringWidth(text), y + 4);
        }
        g.setColor(Color.BLACK);
        g.drawLine(left, MARGIN_TOP_PX, left, bottom);
        g.drawLine(left, bottom, left + width, bottom);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
        g.drawString(title, left, MARGIN_TOP_PX - 12);
    }

    private static void centered(final Graphics2D g, final String text, final int x, final int y)
    {
        g.drawString(text, x - g.getFontMetrics().stringWidth(text) / 2, y);
    }

    private static Color lighter(final Color color, final double amount)
    {
        return new Color((int)(color.getRed() + (255 - color.getRed()) * amount), (int)(color.getGreen() + (255 - color.getGreen()) * amount),
            (int)(color.getBlue() + (255 - color.getBlue()) * amount));
    }

    /** @return the smallest and largest positive value drawn: throughput or latency. */
    private static long[] range(final List<CompareReport.Row> rows, final boolean throughput)
    {
        long low = Long.MAX_VALUE;
        long high = 1;
        for (final CompareReport.Row row : rows)
        {
            for (final CompareReport.Measured m : new CompareReport.Measured[] {row.tally(), row.requestPath(), row.peer()})
            {
                if (m == null || !m.checkOk())
                {
                    continue;
                }
                final long[] values = throughput ? new long[] {m.tps()} : new long[] {m.p50Us(), m.p99Us(), m.p999Us()};
                for (final long value : values)
                {
                    if (value > 0)
                    {
                        low = Math.min(low, value);
                        high = Math.max(high, value);
                    }
                }
            }
        }
        return new long[] {low == Long.MAX_VALUE ? 1 : low, high};
    }

    /** A base-10 logarithmic axis over whole decades. */
    private static final class LogAxis
    {
        final int lowExponent;
        final int highExponent;

        LogAxis(final long[] range)
        {
            lowExponent = (int)Math.floor(Math.log10(Math.max(1, range[0])));
            highExponent = Math.max(lowExponent + 1, (int)Math.ceil(Math.log10(Math.max(1, range[1])) + 0.05));
        }

        int y(final double value, final int top, final int bottom)
        {
            final double fraction = (Math.log10(Math.max(1, value)) - lowExponent) / (highExponent - lowExponent);
            return (int)Math.round(bottom - fraction * (bottom - top));
        }
    }
}
