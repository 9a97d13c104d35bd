package dev.bulwark.cli.internal.report;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleFunction;

/**
 * A chart drawn as inline SVG (no script, no external resource): lines or filled steps over a linear or
 * logarithmic x axis and a linear y axis from zero, with grid lines, labelled ticks, dashed reference lines and a
 * legend. Not thread-safe; build, then {@link #render()} once. Public for the lab's report ({@code bulwark-lab}),
 * which draws its charts the same way; the package is not exported by the module.
 */
public final class SvgChart {

    private static final int LEFT = 64;
    private static final int RIGHT = 16;
    private static final int TOP = 28;
    private static final int BOTTOM = 42;
    /** Height of one row of the legend; a legend that wraps pushes the plot down by this much per extra row. */
    private static final int LEGEND_ROW = 16;
    /** Pixels per character of a legend name at 12 px (an over-estimate, so that wrapped names never overlap). */
    private static final int LEGEND_CHAR = 7;

    private int width = 900;
    private int plotHeight = 300 - TOP - BOTTOM;

    private final String description;
    private final String xLabel;
    private final String yLabel;
    private final boolean logarithmicX;
    private final DoubleFunction<String> xTickLabel;
    private double xMin = Double.NaN;
    private double xMax = Double.NaN;
    private double yMax;
    private final List<Series> series = new ArrayList<>();
    private final List<Reference> horizontal = new ArrayList<>();
    private final List<Reference> vertical = new ArrayList<>();

    private SvgChart(String description, String xLabel, String yLabel, boolean logarithmicX,
                     DoubleFunction<String> xTickLabel) {
        this.description = description;
        this.xLabel = xLabel;
        this.yLabel = yLabel;
        this.logarithmicX = logarithmicX;
        this.xTickLabel = xTickLabel;
    }

    /**
     * A chart over time (seconds on a linear x axis).
     *
     * @param description the chart's accessible name (its {@code aria-label})
     * @param yLabel the y axis's label
     * @return an empty chart
     */
    public static SvgChart overTime(String description, String yLabel) {
        return new SvgChart(description, "seconds", yLabel, false, SvgChart::number);
    }

    /** A chart of a distribution over a logarithmic axis of milliseconds. */
    static SvgChart overLogMillis(String description, String yLabel) {
        return new SvgChart(description, "latency", yLabel, true, SvgChart::millisLabel);
    }

    /**
     * Sets the size of the chart's plot: {@code width} the whole chart's, {@code height} the chart's without its
     * legend's extra rows (900 by 300 unless set; small multiples are smaller).
     *
     * @param width in the chart's own pixels
     * @param height likewise
     * @return this chart
     */
    public SvgChart size(int width, int height) {
        this.width = width;
        this.plotHeight = height - TOP - BOTTOM;
        return this;
    }

    /**
     * Adds a line through the points (x, y); a point whose y is NaN is left out.
     *
     * @param name the series' name in the legend
     * @param color its colour, {@code #rrggbb}
     * @param x the points' x values
     * @param y their y values
     * @return this chart
     */
    public SvgChart line(String name, String color, double[] x, double[] y) {
        series.add(new Series(name, color, x, y, false));
        include(x, y);
        return this;
    }

    /** Adds a filled step shape: between {@code edges[i]} and {@code edges[i + 1]} the value is {@code y[i]}. */
    SvgChart steps(String name, String color, double[] edges, double[] y) {
        series.add(new Series(name, color, edges, y, true));
        include(edges, y);
        return this;
    }

    /**
     * Adds a dashed horizontal line at {@code y}, labelled.
     *
     * @param label the line's label
     * @param color its colour, {@code #rrggbb}
     * @param y where
     * @return this chart
     */
    public SvgChart horizontalLine(String label, String color, double y) {
        horizontal.add(new Reference(label, color, y));
        yMax = Math.max(yMax, y);
        return this;
    }

    /**
     * Adds a dashed vertical line at {@code x}, labelled.
     *
     * @param label the line's label
     * @param color its colour, {@code #rrggbb}
     * @param x where
     * @return this chart
     */
    public SvgChart verticalLine(String label, String color, double x) {
        vertical.add(new Reference(label, color, x));
        return this;
    }

    /**
     * Sets the x range (otherwise the data's).
     *
     * @param min the axis's left end
     * @param max its right end
     * @return this chart
     */
    public SvgChart xRange(double min, double max) {
        xMin = min;
        xMax = max;
        return this;
    }

    private void include(double[] x, double[] y) {
        for (double value : x) {
            if (Double.isNaN(xMin) || value < xMin) {
                xMin = value;
            }
            if (Double.isNaN(xMax) || value > xMax) {
                xMax = value;
            }
        }
        for (double value : y) {
            if (!Double.isNaN(value)) {
                yMax = Math.max(yMax, value);
            }
        }
    }

    /** Returns the top of the plot area in the chart's own pixels: below the legend, however many rows it takes. */
    int plotTop() {
        return TOP + LEGEND_ROW * (legendRows() - 1);
    }

    /** Returns the chart's whole height in its own pixels. */
    int height() {
        return plotTop() + plotHeight + BOTTOM;
    }

    /** Returns the chart's width in its own pixels. */
    int width() {
        return width;
    }

    /**
     * Draws the chart.
     *
     * @return one {@code <svg class="chart">} element, styled by the report's style sheet
     */
    public String render() {
        double left = Double.isNaN(xMin) ? 0 : xMin;
        double right = Double.isNaN(xMax) || xMax <= left ? left + 1 : xMax;
        if (logarithmicX) {
            left = Math.pow(10, Math.floor(Math.log10(Math.max(left, 1e-3))));
            right = Math.pow(10, Math.ceil(Math.log10(Math.max(right, left * 10))));
        }
        double yStep = niceStep(yMax <= 0 ? 1 : yMax / 5);
        double top = yStep * Math.max(1, Math.ceil(yMax / yStep));
        int plotTop = plotTop();
        int height = height();
        int width = this.width;
        Scale scale = new Scale(left, right, top, logarithmicX, width, plotTop, plotHeight);

        StringBuilder svg = new StringBuilder(16_384);
        svg.append(String.format(Locale.ROOT, "<svg class=\"chart\" viewBox=\"0 0 %d %d\" role=\"img\" "
                + "aria-label=\"%s\">%n", width, height, Html.escape(description)));
        svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"plot\"/>%n",
                LEFT, plotTop, width - LEFT - RIGHT, plotHeight));
        for (double y = 0; y <= top + yStep / 2; y += yStep) {
            double py = scale.y(y);
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>"
                    + "<text x=\"%d\" y=\"%.1f\" class=\"tick\" text-anchor=\"end\">%s</text>%n", LEFT,
                    width - RIGHT, py, py, LEFT - 6, py + 4, Html.escape(number(y))));
        }
        for (double x : xTicks(left, right)) {
            double px = scale.x(x);
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" class=\"grid\"/>"
                    + "<text x=\"%.1f\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">%s</text>%n", px, px, plotTop,
                    plotTop + plotHeight, px, plotTop + plotHeight + 16, Html.escape(xTickLabel.apply(x))));
        }
        svg.append(String.format(Locale.ROOT,
                "<text x=\"%d\" y=\"%d\" class=\"axis\" text-anchor=\"middle\">%s</text>%n",
                LEFT + (width - LEFT - RIGHT) / 2, height - 6, Html.escape(xLabel)));
        svg.append(String.format(Locale.ROOT, "<text x=\"14\" y=\"%d\" class=\"axis\" text-anchor=\"middle\" "
                + "transform=\"rotate(-90 14 %d)\">%s</text>%n", plotTop + plotHeight / 2,
                plotTop + plotHeight / 2, Html.escape(yLabel)));
        for (int i = 0; i < horizontal.size(); i++) {
            Reference reference = horizontal.get(i);
            double py = scale.y(reference.value);
            // Labels alternate between the right and the left end so that equal values do not print over each other.
            boolean atRight = i % 2 == 0;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                    + "class=\"reference\"/><text x=\"%d\" y=\"%.1f\" fill=\"%s\" class=\"label\" "
                    + "text-anchor=\"%s\">%s</text>%n", LEFT, width - RIGHT, py, py, reference.color,
                    atRight ? width - RIGHT - 4 : LEFT + 4, py - 4, reference.color, atRight ? "end" : "start",
                    Html.escape(reference.label)));
        }
        for (Reference reference : vertical) {
            if (reference.value < left || reference.value > right) {
                continue;
            }
            double px = scale.x(reference.value);
            // Near the right edge the label goes to the left of its line, so that it is not cut off.
            boolean labelLeft = px > width - RIGHT - 90;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"%s\" "
                    + "class=\"reference\"/><text x=\"%.1f\" y=\"%d\" fill=\"%s\" class=\"label\" "
                    + "text-anchor=\"%s\">%s</text>%n", px, px, plotTop, plotTop + plotHeight, reference.color,
                    labelLeft ? px - 4 : px + 4, plotTop + 12, reference.color, labelLeft ? "end" : "start",
                    Html.escape(reference.label)));
        }
        // Data goes over the reference lines, so that a series running along a limit stays visible.
        for (Series s : series) {
            svg.append(s.filled ? stepsPath(s, scale) : linePath(s, scale));
        }
        svg.append(legend());
        svg.append("</svg>\n");
        return svg.toString();
    }

    /**
     * Lays the legend out in rows that wrap at the chart's right edge: one long row used to run past the edge,
     * where the SVG's viewBox cut the last names off (compare's eight limiters past 900 px).
     *
     * @return for each series, its legend entry's {x, row}
     */
    private int[][] legendLayout() {
        int[][] layout = new int[series.size()][];
        int x = LEFT;
        int row = 0;
        for (int i = 0; i < series.size(); i++) {
            int itemWidth = legendWidth(series.get(i));
            if (x > LEFT && x + itemWidth > width - RIGHT) {
                row++;
                x = LEFT;
            }
            layout[i] = new int[] {x, row};
            x += itemWidth + 15;
        }
        return layout;
    }

    private static int legendWidth(Series s) {
        return 19 + LEGEND_CHAR * s.name.length();
    }

    private int legendRows() {
        int[][] layout = legendLayout();
        return layout.length == 0 ? 1 : layout[layout.length - 1][1] + 1;
    }

    private String legend() {
        StringBuilder legend = new StringBuilder();
        int[][] layout = legendLayout();
        for (int i = 0; i < series.size(); i++) {
            Series s = series.get(i);
            int x = layout[i][0];
            int y = 8 + LEGEND_ROW * layout[i][1];
            legend.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"10\" "
                    + "fill=\"%s\"/><text x=\"%d\" y=\"%d\" class=\"legend\">%s</text>%n", x, y, s.color, x + 19,
                    y + 9, Html.escape(s.name)));
        }
        return legend.toString();
    }

    private static String linePath(Series s, Scale scale) {
        StringBuilder points = new StringBuilder();
        for (int i = 0; i < s.x.length; i++) {
            if (Double.isNaN(s.y[i])) {
                continue;
            }
            points.append(String.format(Locale.ROOT, "%.1f,%.1f ", scale.x(s.x[i]), scale.y(s.y[i])));
        }
        return String.format(Locale.ROOT, "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" class=\"series\"/>%n",
                points.toString().trim(), s.color);
    }

    private static String stepsPath(Series s, Scale scale) {
        StringBuilder path = new StringBuilder();
        double base = scale.y(0);
        path.append(String.format(Locale.ROOT, "M%.1f,%.1f", scale.x(s.x[0]), base));
        for (int i = 0; i < s.y.length; i++) {
            double py = scale.y(s.y[i]);
            path.append(String.format(Locale.ROOT, " L%.1f,%.1f L%.1f,%.1f", scale.x(s.x[i]), py, scale.x(s.x[i + 1]),
                    py));
        }
        path.append(String.format(Locale.ROOT, " L%.1f,%.1f Z", scale.x(s.x[s.x.length - 1]), base));
        return String.format(Locale.ROOT, "<path d=\"%s\" fill=\"%s\" fill-opacity=\"0.35\" stroke=\"%s\" "
                + "class=\"series\"/>%n", path, s.color, s.color);
    }

    private List<Double> xTicks(double left, double right) {
        List<Double> ticks = new ArrayList<>();
        if (logarithmicX) {
            for (double x = left; x <= right * 1.0001; x *= 10) {
                ticks.add(x);
            }
            return ticks;
        }
        double step = niceStep((right - left) / 8);
        for (double x = Math.ceil(left / step) * step; x <= right + step / 1000; x += step) {
            ticks.add(x);
        }
        return ticks;
    }

    /** The step among 1, 2 and 5 times a power of ten nearest above {@code rough}. */
    static double niceStep(double rough) {
        double power = Math.pow(10, Math.floor(Math.log10(rough)));
        double fraction = rough / power;
        double nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10;
        return nice * power;
    }

    static String number(double value) {
        if (Math.abs(value) >= 1000) {
            return String.format(Locale.ROOT, "%,.0f", value);
        }
        if (value == Math.rint(value)) {
            return String.format(Locale.ROOT, "%.0f", value);
        }
        return BigDecimal.valueOf(value).round(new MathContext(3)).stripTrailingZeros().toPlainString();
    }

    static String millisLabel(double millis) {
        if (millis >= 1000) {
            return number(millis / 1000) + " s";
        }
        if (millis >= 1) {
            return number(millis) + " ms";
        }
        return number(millis * 1000) + " µs";
    }

    private record Series(String name, String color, double[] x, double[] y, boolean filled) {
    }

    private record Reference(String label, String color, double value) {
    }

    /** Maps data to pixels. */
    private record Scale(double left, double right, double top, boolean logarithmic, int width, int plotTop,
                         int plotHeight) {
        double x(double value) {
            double fraction = logarithmic
                    ? (Math.log10(Math.max(value, left)) - Math.log10(left)) / (Math.log10(right) - Math.log10(left))
                    : (value - left) / (right - left);
            return LEFT + fraction * (width - LEFT - RIGHT);
        }

        double y(double value) {
            return plotTop + plotHeight - Math.min(1.0, value / top) * plotHeight;
        }
    }
}
