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

/**
 * Renders a page in a real headless Chromium (Debian's, installed by {@code bin/setup}), offline, and reads the
 * screenshot: for the simulator's reports here and the lab's report in {@code bulwark-lab}, which takes this class
 * from the CLI's test jar.
 */
public final class HeadlessChromium {

    private HeadlessChromium() {
    }

    /**
     * Renders {@code page} in headless Chromium with every network fetch refused, and returns its screenshot.
     *
     * @param directory a scratch directory for the browser's profile, log and screenshot
     * @param page the page to render
     * @param width the window's width in pixels
     * @param height its height
     * @return the screenshot, {@code width} by {@code height}
     * @throws Exception when Chromium cannot be started or its screenshot read
     * @throws AssertionError when no Chromium is installed, it does not finish within two minutes, or it writes no
     *     screenshot
     */
    public static BufferedImage screenshot(Path directory, Path page, int width, int height) throws Exception {
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

    /**
     * Counts the pixels within a small distance of a colour (anti-aliasing blends the edges of lines).
     *
     * @param image a screenshot
     * @param rgb the colour, {@code 0xRRGGBB}
     * @return how many pixels are that colour or nearly
     */
    public static int pixelsNear(BufferedImage image, int rgb) {
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
