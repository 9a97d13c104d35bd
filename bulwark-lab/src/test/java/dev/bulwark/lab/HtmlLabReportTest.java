package dev.bulwark.lab;

import static dev.bulwark.cli.internal.report.HeadlessChromium.pixelsNear;
import static dev.bulwark.cli.internal.report.HeadlessChromium.screenshot;
import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lab's HTML page, from the figures of an experiment made up here (no PostgreSQL, no service): its tables hold
 * every run, its two charts draw every guard's line and mark the stages, everything from outside is escaped, and a
 * real headless Chromium renders it with the lines in their colours.
 */
class HtmlLabReportTest {

    private static final List<Stage> STAGES = List.of(Stage.plateau("warm", 20, Duration.ofSeconds(4)),
            Stage.plateau("surge", 80, Duration.ofSeconds(4)), Stage.plateau("recovery", 20, Duration.ofSeconds(4)));
    private static final String NONE_RED = "#b91c1c";
    private static final String FIXED_BLUE = "#2563eb";
    private static final String SELF_TUNING_PURPLE = "#9333ea";

    @Test
    void holdsEveryRunInItsTablesAndChartsAndMarksTheStages() {
        String html = HtmlLabReport.render(experiment());

        assertThat(html).startsWith("<!DOCTYPE html>").contains("<title>bulwark-lab overload --quick</title>")
                .contains("<h2>surge, by guard</h2>").contains("<h2>The simulator against the lab</h2>");
        assertThat(count(html, "<svg class=\"chart\"")).as("two charts").isEqualTo(2);
        for (String color : List.of(NONE_RED, FIXED_BLUE, SELF_TUNING_PURPLE)) {
            assertThat(count(html, "stroke=\"" + color + "\" class=\"series\"")).as("%s's line on each chart", color)
                    .isEqualTo(2);
        }
        for (String guard : List.of("none", "fixed", "selfTuning")) {
            // The runs table, the goodput-by-stage table and the sim-vs-real table each have a row per guard.
            assertThat(count(html, "<tr><td>" + guard + "</td>")).as("%s's rows", guard).isEqualTo(3);
        }
        // The stages after the first are marked on both charts, with the capacity and the client's timeout.
        assertThat(count(html, ">surge</text>")).isEqualTo(2);
        assertThat(count(html, ">recovery</text>")).isEqualTo(2);
        assertThat(html).contains(">capacity 40/s</text>").contains(">client timeout</text>")
                .contains("<td>10 → 7</td>");
        // Text from outside the report (a path) is escaped, never markup.
        assertThat(html).contains("/opt/&lt;pg&gt;&amp;bin").doesNotContain("/opt/<pg>");
    }

    @Test
    void drawsTheSheddingExperimentsClassesInTheirModesColours() {
        List<RunResult> runs = List.of(run("none critical", 0, -1, 2, Outcome.CLIENT_TIMEOUT, 1_000),
                run("none sheddable", 0, -1, 2, Outcome.CLIENT_TIMEOUT, 1_000),
                run("priorities critical", 10, -1, 50, Outcome.REFUSED, 2),
                run("priorities sheddable", 10, -1, 2, Outcome.REFUSED, 2));
        LabExperiment.Result overload = experiment();
        String html = HtmlLabReport.render(new LabExperiment.Result(Scenario.SHEDDING, overload.started(), false, 2,
                "/usr/lib/postgresql/15/bin", 20.5, overload.probe(), 40, overload.probeByClients(), overload.model(),
                overload.sizing(), "simulator", 4, 0, 1, 16, "", List.of(), List.of(0.5, 1.0, 1.2), STAGES, runs,
                List.of()));

        assertThat(html).contains("<title>bulwark-lab shedding</title>")
                .contains("Critical requests at 16/s (0.4x) throughout")
                .contains("<div class=\"value\">10</div><div class=\"name\">the edge&#39;s limit (the pool&#39;s size)")
                .doesNotContain("The simulator against the lab");
        // Each mode's hue, dark for its critical requests and light for its sheddable ones, on both charts.
        for (String color : List.of("#b91c1c", "#f87171", "#9333ea", "#d8b4fe")) {
            assertThat(count(html, "stroke=\"" + color + "\" class=\"series\"")).as(color).isEqualTo(2);
        }
    }

    @Test
    void theSlowdownsReportSaysHowFastTheSimulatorsDownstreamWorkedWhileSlowed() {
        LabExperiment.Result o = experiment();
        LabExperiment.Result slowdown = new LabExperiment.Result(Scenario.SLOWDOWN, o.started(), o.quick(), o.cores(),
                o.postgresBin(), o.workMillisAlone(), o.probe(), o.capacityPerSecond(), o.probeByClients(), o.model(),
                o.sizing(), o.fixedSizedBy(), o.fixedLimit(), 89, 0.4734, 0, "4 sessions run a heavy query",
                List.of(90L, 121L), o.loadAverages(), o.stages(), o.runs(), o.simVsReal());

        assertThat(Report.text(slowdown)).contains("slowed: 4 sessions run a heavy query during the second stage")
                .contains("closed-loop throughput of 10 clients meanwhile 89/s, so the simulator's downstream works at"
                        + " 0.47 of its speed then")
                .contains("simulator against the lab, per stage");
        assertThat(HtmlLabReport.render(slowdown)).contains("<h2>The simulator against the lab</h2>");
    }

    @Test
    void namesTheLoadedDependencyInTheRemoteExperiment() {
        LabExperiment.Result o = experiment();
        LabExperiment.Result remote = new LabExperiment.Result(Scenario.REMOTE, o.started(), o.quick(), o.cores(),
                o.postgresBin(), 21.94, o.probe(), o.capacityPerSecond(), o.probeByClients(), o.model(), o.sizing(),
                o.fixedSizedBy(), o.fixedLimit(), 0, 1, 0, "", List.of(), o.loadAverages(), o.stages(), o.runs(),
                o.simVsReal());

        String html = HtmlLabReport.render(remote);

        assertThat(html).contains("<title>bulwark-lab remote --quick</title>")
                .contains("<div class=\"value\">21.94 ms</div><div class=\"name\">remote time alone")
                .contains("<h2>The simulator against the lab</h2>");
        assertThat(Report.text(remote)).contains("remote time alone 21.94 ms;");
        assertThat(HtmlLabReport.render(o)).contains("<div class=\"name\">database time alone");
    }

    @Test
    void isWrittenBesideTheTextAndJson(@TempDir Path directory) throws Exception {
        Report.write(experiment(), directory);

        assertThat(directory.resolve("overload.txt")).exists();
        assertThat(directory.resolve("overload.json")).exists();
        assertThat(Files.readString(directory.resolve("overload.html"))).isEqualTo(HtmlLabReport.render(experiment()));
    }

    @Test
    void rendersWithEveryGuardsLineInChromium(@TempDir Path directory) throws Exception {
        Path page = directory.resolve("overload.html");
        Files.writeString(page, HtmlLabReport.render(experiment()));

        BufferedImage image = screenshot(directory, page, 1200, 2000);
        assertThat(image.getRGB(5, 5) & 0xFFFFFF).as("page background").isEqualTo(0xF8FAFC);
        assertThat(pixelsNear(image, 0xB91C1C)).as("the unguarded run's red").isGreaterThan(300);
        assertThat(pixelsNear(image, 0x2563EB)).as("the fixed bulkhead's blue").isGreaterThan(300);
        assertThat(pixelsNear(image, 0x9333EA)).as("selfTuning's purple").isGreaterThan(300);
    }

    /** Three runs of a made-up surge: the unguarded one times out through it, the bulkheads refuse the excess. */
    static LabExperiment.Result experiment() {
        List<RunResult> runs = List.of(run("none", 0, -1, 2, Outcome.CLIENT_TIMEOUT, 1_000),
                run("fixed", 4, -1, 3, Outcome.REFUSED, 2), run("selfTuning", 10, 7, 4, Outcome.REFUSED, 3));
        ServiceModel model = new ServiceModel(20, 0.5, 1, 2, 0.1, 0, List.of(new ServiceModel.ProbePoint(1, 30, 31),
                new ServiceModel.ProbePoint(2, 40, 39)));
        SimulatorSizing sizing = new SimulatorSizing(4, 3, 80, 300, 0.5, List.of());
        List<SimVsReal> simVsReal = new ArrayList<>();
        for (RunResult run : runs) {
            simVsReal.add(new SimVsReal(run.guard(), List.of(new SimVsReal.Row("surge", 38, 40, 0.95, 120, 100, 1.2,
                    true))));
        }
        return new LabExperiment.Result(Scenario.OVERLOAD, Instant.parse("2026-12-07T04:00:00Z"), true, 2,
                "/opt/<pg>&bin", 20.5, "1: 30/s, 2: 40/s", 40, Map.of(1, 30.0, 2, 40.0), model, sizing, "simulator",
                4, 0, 1, 0, "", List.of(), List.of(0.5, 1.5, 1.7, 1.9), STAGES, runs, simVsReal);
    }

    /**
     * One request every 1/rate s of each stage; in the surge, one in {@code every} ends in {@code excess} after
     * {@code excessMillis}, so that each guard draws its own line.
     */
    private static RunResult run(String guard, int limit, int finalLimit, int every, Outcome excess,
            long excessMillis) {
        List<Sample> samples = new ArrayList<>();
        long stageStart = 0;
        for (Stage stage : STAGES) {
            long gap = (long) (1e9 / stage.fromRate());
            long end = stageStart + stage.length().toNanos();
            int i = 0;
            for (long at = stageStart; at < end; at += gap, i++) {
                boolean over = stage.fromRate() > 40 && i % every == 0;
                samples.add(new Sample(at, over ? excessMillis * 1_000_000 : 25_000_000,
                        over ? excess : Outcome.OK, 100_000));
            }
            stageStart = end;
        }
        return RunResult.of(guard, limit, finalLimit, samples, STAGES, 0);
    }

    private static int count(String text, String part) {
        Matcher matcher = Pattern.compile(Pattern.quote(part)).matcher(text);
        int count = 0;
        while (matcher.find()) {
            count++;
        }
        return count;
    }
}
