package dev.bulwark.cli.internal;

import dev.bulwark.cli.internal.compare.CompareScenario;
import dev.bulwark.cli.internal.compare.Comparison;
import dev.bulwark.cli.internal.compare.Contender;
import dev.bulwark.cli.internal.report.CompareReport;
import dev.bulwark.cli.internal.sim.Durations;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code bulwark compare}: adaptive limiters side by side on the same seeded calls, in virtual time. */
@Command(name = "compare", mixinStandardHelpOptions = true, versionProvider = BulwarkVersion.class,
        sortOptions = false, usageHelpAutoWidth = true,
        description = {
            "Runs several limiters on the same seeded calls, side by side, in virtual time: Bulwark's adaptive "
                    + "algorithms (real bulkheads with no queue), Netflix concurrency-limits' Gradient2, Vegas and "
                    + "AIMD (their SimpleLimiter on the virtual clock), and the oracle: the best fixed limit a "
                    + "sweep finds. Reports each one's goodput as a share of the oracle's on the same seed (mean "
                    + "and worst seed), its p99 latency against the oracle's, and how fast it settles after a "
                    + "capacity step.",
            "",
            "The downstream is the simulator's (processor sharing, degradation 1); arrivals are Poisson; a call "
                    + "not answered within 1s is given up and counts as a drop.",
            ""},
        footer = {"", "Scenarios: c20-start5, c20-start60, c20-start20, c20-steps, c20-underload, c20-lognormal, "
                + "c20-pareto, c20-noise, c40, c6 (default: all).", "",
            "Grid scenarios (--grid runs them all; --scenario takes any of them): grid-exp, grid-lognormal-s1, "
                    + "grid-lognormal-s1.5, grid-lognormal-s2, grid-pareto-a1.5, grid-pareto-a2, grid-pareto-a3, "
                    + "grid-mix-5x-1, grid-mix-5x-50, grid-mix-10x-10, grid-mix-50x-1, grid-mix-50x-10, "
                    + "grid-mix-50x-50, grid-slow10-100ms, grid-slow10-500ms, grid-pause-100ms, grid-pause-500ms, "
                    + "grid-burst-1s, grid-burst-200ms, grid-retry-storm, grid-retry-storm-5x, grid-c2, grid-c100, "
                    + "grid-c500, grid-load0.3, grid-load5, grid-step-up-2x, grid-step-up-4x, grid-step-down-2x, "
                    + "grid-step-down-4x.", "",
            "Examples:",
            "  bulwark compare",
            "  bulwark compare --scenario c20-steps,c6 --seeds 3 --report compare.html",
            "  bulwark compare --grid --duration 20s --report grid.html",
            "  bulwark compare --format json > compare.json"})
final class CompareCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--scenario", order = 10, paramLabel = "NAME", split = ",",
            description = "The scenarios to run (see below). Default: all.")
    List<String> scenarioNames;

    @Option(names = "--grid", order = 15,
            description = "Run the wider family of scenarios instead (service-time shapes, fast/slow mixtures, slow "
                    + "periods and pauses, bursty arrivals, retrying clients, capacities 2 to 500, loads 0.3x to 5x, "
                    + "capacity steps up and down by 2x and 4x; listed below), with one more limiter: Netflix's "
                    + "Gradient2 with minLimit(1), since its default floor of 20 is most grid scenarios' capacity. "
                    + "The report's summary has a row per scenario, and the HTML page shows it as a heat map.")
    boolean grid;

    @Option(names = "--seeds", order = 20, paramLabel = "N", defaultValue = "5",
            converter = Converters.PositiveInteger.class,
            description = "Seeds per scenario (from --first-seed on): each is a separate run of every limiter on the "
                    + "same calls. Default: ${DEFAULT-VALUE}.")
    int seeds;

    @Option(names = "--first-seed", order = 25, paramLabel = "N", defaultValue = "1",
            converter = Converters.PositiveInteger.class,
            description = "The first seed: runs use seeds N, N+1, ... (a held-out check of results first seen on "
                    + "seeds 1 to 5: --first-seed 6). Default: ${DEFAULT-VALUE}.")
    int firstSeed;

    /** The shortest run compare accepts: long enough for every scenario's calls to complete in numbers. */
    private static final Duration MIN_DURATION = Duration.ofSeconds(1);

    @Option(names = "--duration", order = 30, paramLabel = "DURATION", defaultValue = "60s",
            converter = Converters.PositiveDuration.class,
            description = "Virtual length of each run; capacity steps happen at a third and two thirds of it. "
                    + "Default: ${DEFAULT-VALUE}.")
    Duration duration;

    @Option(names = "--format", order = 40, paramLabel = "FORMAT", defaultValue = "text",
            converter = LowerCaseEnumConverter.Format.class,
            description = "Report format on standard output: text or json. Default: ${DEFAULT-VALUE}.")
    ReportFormat format;

    @Option(names = "--report", order = 50, paramLabel = "FILE.html",
            description = "Also write a self-contained HTML page with each limiter's limit and goodput over time "
                    + "(first seed) for every scenario.")
    Path report;

    @Option(names = "--progress", order = 60, paramLabel = "MODE", defaultValue = "auto",
            converter = LowerCaseEnumConverter.Progress.class,
            description = "Progress on standard error: plain (a line per scenario and limiter), off, or auto "
                    + "(plain). Default: ${DEFAULT-VALUE}.")
    ProgressMode progress;

    @Override
    public Integer call() throws IOException {
        List<CompareScenario> scenarios = new ArrayList<>();
        try {
            if (grid && scenarioNames != null) {
                throw new ParameterException(spec.commandLine(), "--grid cannot be combined with --scenario: it runs "
                        + "every grid scenario (name grid scenarios with --scenario alone)");
            }
            if (grid) {
                scenarios.addAll(CompareScenario.grid());
            } else if (scenarioNames == null) {
                scenarios.addAll(CompareScenario.all());
            } else {
                for (String name : scenarioNames) {
                    scenarios.add(CompareScenario.named(name));
                }
            }
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--scenario: " + e.getMessage());
        }
        if (format == ReportFormat.CSV) {
            throw new ParameterException(spec.commandLine(), "--format: compare writes text or json, not csv");
        }
        if (duration.compareTo(MIN_DURATION) < 0) {
            // Shorter, a run may end before any call completes: a share of the oracle's goodput would be 0 / 0.
            throw new ParameterException(spec.commandLine(), "--duration: compare needs at least 1s of virtual time "
                    + "per run, got '" + Durations.humanMillis(duration.toNanos() / 1e6) + "'");
        }
        if (report != null) {
            Path parent = report.toAbsolutePath().getParent();
            if (parent == null || !Files.isDirectory(parent) || Files.isDirectory(report)) {
                throw new ParameterException(spec.commandLine(), "--report: '" + report
                        + "' is not a file path in an existing directory; expected a path such as compare.html");
            }
        }
        List<Long> seedList = new ArrayList<>();
        for (long seed = firstSeed; seed < (long) firstSeed + seeds; seed++) {
            seedList.add(seed);
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        List<Comparison.ScenarioResult> results = new ArrayList<>();
        for (CompareScenario scenario : scenarios) {
            double mean = scenario.serviceTime().meanNanos();
            Comparison comparison = new Comparison(List.of(scenario), grid ? Contender.forGrid(mean)
                    : Contender.adaptive(mean), seedList, duration.toNanos());
            results.addAll(comparison.run(line -> {
                if (progress != ProgressMode.OFF) {
                    err.println(line);
                    err.flush();
                }
            }));
        }
        if (format == ReportFormat.JSON) {
            CompareReport.writeJson(results, seedList, duration, out);
        } else {
            CompareReport.writeText(results, seedList, duration, out);
        }
        out.flush();
        if (report != null) {
            try {
                CompareReport.writeHtml(results, seedList, duration, report);
            } catch (java.io.IOException failed) {
                throw ReportPath.writeFailed(report, failed);
            }
            err.println("Report written to " + report.toAbsolutePath().normalize());
            err.flush();
        }
        return 0;
    }
}
