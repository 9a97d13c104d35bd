package dev.bulwark.cli.internal.report;

import static dev.bulwark.cli.internal.report.HeadlessChromium.pixelsNear;
import static dev.bulwark.cli.internal.report.HeadlessChromium.screenshot;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.cli.internal.compare.Comparison;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Renders the reports in a real headless Chromium (installed by {@code bin/setup}), offline, and checks the
 * screenshots: the simulate page has a light background and its charts drew their series in their colours; the
 * compare page's legend shows every series and its heat map is painted.
 */
class HtmlReportInBrowserTest {

    private static final int WIDTH = 1200;
    private static final int HEIGHT = 2400;

    @Test
    void rendersWithItsChartsInChromium(@TempDir Path directory) throws Exception {
        Path page = directory.resolve("report.html");
        HtmlReport.write(ShortRuns.withBulkhead(), page);

        BufferedImage image = screenshot(directory, page, WIDTH, HEIGHT);
        assertThat(image.getWidth()).isEqualTo(WIDTH);
        assertThat(image.getHeight()).isEqualTo(HEIGHT);
        assertThat(image.getRGB(5, 5) & 0xFFFFFF).as("page background").isEqualTo(0xF8FAFC);
        assertThat(pixelsNear(image, 0x2563EB)).as("in-flight and end-to-end blue").isGreaterThan(500);
        assertThat(pixelsNear(image, 0xD97706)).as("queued amber").isGreaterThan(200);
        assertThat(pixelsNear(image, 0x15803D)).as("served green").isGreaterThan(200);
        assertThat(pixelsNear(image, 0xDC2626)).as("refused red").isGreaterThan(200);
    }

    /**
     * Compare's chart of every limit, alone on a page at its own size: each of the nine series (eight limiters and
     * the capacity) has its swatch drawn in the legend, above the plot. One long legend row used to run past the
     * chart's 900 px, where the viewBox cut off the last entries (the Netflix series could not be identified).
     */
    @Test
    void comparesLegendShowsEverySeriesInChromium(@TempDir Path directory) throws Exception {
        Comparison.ScenarioResult result = CompareReportTest.shortComparison().get(0);
        SvgChart chart = CompareReport.limitChart(result, 1L);
        String svg = chart.render().replaceFirst("<svg class=\"chart\"", "<svg class=\"chart\" style=\"width:"
                + chart.width() + "px;height:" + chart.height() + "px;border:0;border-radius:0\"");
        Path page = directory.resolve("chart.html");
        Files.writeString(page, "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><style>" + HtmlReport.STYLE
                + "\nbody{margin:0}</style></head><body>" + svg + "</body></html>");

        BufferedImage image = screenshot(directory, page, 1000, 600);
        BufferedImage legend = image.getSubimage(0, 0, chart.width(), chart.plotTop());
        for (String color : CompareReport.seriesColors(result)) {
            assertThat(pixelsNear(legend, Integer.parseInt(color.substring(1), 16))).as("swatch %s in the legend",
                    color).isGreaterThan(60);
        }
    }

    /** The whole compare page: the heat map's bins are painted, and the small multiples draw their lines. */
    @Test
    void comparesHeatMapIsPaintedInChromium(@TempDir Path directory) throws Exception {
        Path page = directory.resolve("compare.html");
        Files.writeString(page, CompareReport.renderHtml(CompareReportTest.shortComparison(), List.of(1L),
                Duration.ofSeconds(3)));

        BufferedImage image = screenshot(directory, page, WIDTH, HEIGHT);
        int painted = 0;
        for (double share : new double[] {1.0, 0.95, 0.9, 0.8, 0.5}) {
            painted += pixelsNear(image, Integer.parseInt(CompareReport.heatColor(share).substring(1), 16));
        }
        // Fourteen cells of about 130 x 30 px.
        assertThat(painted).as("heat-map cells").isGreaterThan(14 * 1500);
        assertThat(pixelsNear(image, 0x9CA3AF)).as("the oracle's grey in the small multiples").isGreaterThan(500);
    }
}
