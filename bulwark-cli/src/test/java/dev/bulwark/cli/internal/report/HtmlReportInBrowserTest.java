package dev.bulwark.cli.internal.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.cli.internal.compare.Comparison;
import java.awt.image.BufferedImage;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
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

    /** Renders the page in headless Chromium, offline, and returns its screenshot. */
    private static BufferedImage screenshot(Path directory, Path page, int width, int height) throws Exception {
        Path screenshot = directory.resolve(page.getFileName() + ".png");
        List<String> command = new ArrayList<>(List.of(chromium(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-extensions", "--hide-scrollbars",
                "--user-data-dir=" + directory.resolve("profile"),
                // Any attempt to fetch something from the network fails: the page must not need to.
                "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
                "--window-size=" + width + "," + height, "--screenshot=" + screenshot, page.toUri().toString()));
        Path log = directory.resolve(page.getFileName() + ".log");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("chromium finished").isTrue();
        assertThat(Files.exists(screenshot)).as("screenshot written; log: %s", Files.readString(log)).isTrue();
        return ImageIO.read(screenshot.toFile());
    }

    private static String chromium() {
        for (String candidate : new String[] {"/usr/bin/chromium", "/usr/bin/chromium-browser",
            "/usr/bin/google-chrome"}) {
            if (new File(candidate).canExecute()) {
                return candidate;
            }
        }
        throw new AssertionError("No Chromium found: run bin/setup, which installs Debian's chromium package");
    }

    /** Counts pixels within a small distance of a colour (anti-aliasing blends the edges of lines). */
    private static int pixelsNear(BufferedImage image, int rgb) {
        int red = (rgb >> 16) & 0xFF;
        int green = (rgb >> 8) & 0xFF;
        int blue = rgb & 0xFF;
        int count = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                int pixel = image.getRGB(x, y);
                if (Math.abs(((pixel >> 16) & 0xFF) - red) + Math.abs(((pixel >> 8) & 0xFF) - green)
                        + Math.abs((pixel & 0xFF) - blue) <= 24) {
                    count++;
                }
            }
        }
        return count;
    }
}
