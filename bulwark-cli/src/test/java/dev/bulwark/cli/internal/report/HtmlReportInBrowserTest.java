package dev.bulwark.cli.internal.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Renders the report in a real headless Chromium (installed by {@code bin/setup}), offline, and checks the
 * screenshot: the page has a light background, and the charts drew their series in their colours.
 */
class HtmlReportInBrowserTest {

    private static final int WIDTH = 1200;
    private static final int HEIGHT = 2400;

    @Test
    void rendersWithItsChartsInChromium(@TempDir Path directory) throws Exception {
        Path page = directory.resolve("report.html");
        HtmlReport.write(ShortRuns.withBulkhead(), page);
        Path screenshot = directory.resolve("report.png");

        List<String> command = new ArrayList<>(List.of(chromium(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-extensions", "--hide-scrollbars",
                "--user-data-dir=" + directory.resolve("profile"),
                // Any attempt to fetch something from the network fails: the page must not need to.
                "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
                "--window-size=" + WIDTH + "," + HEIGHT, "--screenshot=" + screenshot, page.toUri().toString()));
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(directory.resolve("chromium.log").toFile()).start();
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("chromium finished").isTrue();
        assertThat(Files.exists(screenshot)).as("screenshot written; log: %s",
                Files.readString(directory.resolve("chromium.log"))).isTrue();

        BufferedImage image = ImageIO.read(screenshot.toFile());
        assertThat(image.getWidth()).isEqualTo(WIDTH);
        assertThat(image.getHeight()).isEqualTo(HEIGHT);
        assertThat(image.getRGB(5, 5) & 0xFFFFFF).as("page background").isEqualTo(0xF8FAFC);
        assertThat(pixelsNear(image, 0x2563EB)).as("in-flight and end-to-end blue").isGreaterThan(500);
        assertThat(pixelsNear(image, 0xD97706)).as("queued amber").isGreaterThan(200);
        assertThat(pixelsNear(image, 0x15803D)).as("served green").isGreaterThan(200);
        assertThat(pixelsNear(image, 0xDC2626)).as("refused red").isGreaterThan(200);
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
