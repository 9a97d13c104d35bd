package dev.bulwark.cli.internal;

import dev.bulwark.cli.internal.report.CsvReport;
import dev.bulwark.cli.internal.report.HtmlReport;
import dev.bulwark.cli.internal.report.JsonReport;
import dev.bulwark.cli.internal.report.TenantReport;
import dev.bulwark.cli.internal.report.TextReport;
import dev.bulwark.Priority;
import dev.bulwark.cli.internal.sim.ArrivalModel;
import dev.bulwark.cli.internal.sim.BulkheadSettings;
import dev.bulwark.cli.internal.sim.Rate;
import dev.bulwark.cli.internal.sim.CallMix;
import dev.bulwark.cli.internal.sim.Durations;
import dev.bulwark.cli.internal.sim.LoadSchedule;
import dev.bulwark.cli.internal.sim.Mix;
import dev.bulwark.cli.internal.sim.Simulation;
import dev.bulwark.cli.internal.sim.SimulationResult;
import dev.bulwark.cli.internal.sim.SimulationSettings;
import dev.bulwark.cli.internal.sim.TenantSimulation;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code bulwark simulate}: one run of the real bulkhead against the simulated downstream. */
@Command(name = "simulate", mixinStandardHelpOptions = true, versionProvider = BulwarkVersion.class,
        sortOptions = false, usageHelpAutoWidth = true,
        description = {
            "Drives the real dev.bulwark.Bulkhead against a simulated downstream in real time and reports who was "
                    + "served, who was refused, how long they waited, and whether the downstream stayed healthy.",
            "",
            "The defaults tell the story: 2000 calls/s of 20 ms work (40 calls' worth) against a downstream that "
                    + "serves 32 at full speed. With the bulkhead (limit 32, queue 64, max wait 100ms) it stays "
                    + "healthy and about 80%% of calls are served; with --no-bulkhead it collapses.",
            ""},
        footer = {"", "Examples:",
            "  bulwark simulate",
            "  bulwark simulate --no-bulkhead",
            "  bulwark simulate --service-time lognormal:median=15ms,p99=120ms --limit 24",
            "  bulwark simulate --retry 2 --timeout 200ms --report run.html",
            "  bulwark simulate --clients 200 --think-time 5ms --threads --format json",
            "  bulwark simulate --tenants 4 --noisy-tenant 10 --rate 450/s --limit 20 --global-limit 40",
            "  bulwark simulate --virtual-time --rate 3200/s --priority-mix critical:20%%,normal:50%%,sheddable:30%%",
            "  bulwark simulate --virtual-time --scenario priority-surge --reserve critical:4 --min-limit 8",
            "  bulwark simulate --scenario noisy-tenant --seed 7",
            "  bulwark simulate --virtual-time --rate 1600/s --adaptive self-tuning --schedule "
                    + "'critical: 0.5x for 120s; sheddable: 0.25x for 30s, 12x for 60s, 0.25x for 30s'"})
final class SimulateCommand implements Callable<Integer> {

    /** The named tenant scenario: one tenant at ten times its rate under an adaptive global limit. */
    static final String NOISY_TENANT = "noisy-tenant";
    /** Its quiet twin: the same with every tenant at its rate, to compare the others' waits with. */
    static final String NOISY_TENANT_QUIET = "noisy-tenant-quiet";
    private static final int SCENARIO_TENANTS = 4;
    /** Each tenant's load in the tenant scenarios, as a fraction of its fair share of the downstream's capacity. */
    private static final double SCENARIO_SHARE_LOAD = 0.6;
    private static final Duration SCENARIO_DURATION = Duration.ofSeconds(60);

    @Spec
    CommandSpec spec;

    @Option(names = "--duration", order = 10, paramLabel = "DURATION", defaultValue = "10s",
            converter = Converters.PositiveDuration.class,
            description = "How long calls arrive (the run takes this plus up to --drain). Default: ${DEFAULT-VALUE}.")
    Duration duration;

    @Mixin
    ScenarioOptions scenario;

    @Option(names = "--schedule", order = 11, paramLabel = "SCHEDULE",
            description = {"Open-loop arrivals whose rate follows a schedule (a ramp, a surge, a recovery) instead of "
                    + "a steady --rate; the run lasts as long as the schedule (no --duration). Phases are "
                    + "'RATE for DURATION' (steady) or 'RATE..RATE for DURATION' (a linear ramp), separated by "
                    + "commas; RATE is a rate as for --rate, 0, or a multiple of --rate such as 12x.",
                    "One schedule for all calls ('1x for 30s, 12x for 60s, 1x for 30s', priorities from "
                            + "--priority-mix), or one per priority separated by semicolons, which sets each "
                            + "call's priority: 'critical: 800/s for 120s; sheddable: 400/s for 30s, 19200/s for "
                            + "60s, 400/s for 30s'."})
    String schedule;

    @Option(names = "--scenario", order = 12, paramLabel = "NAME",
            description = {"A named scenario, in multiples of the downstream's capacity (--downstream-capacity "
                    + "calls of the mean --service-time at once: 1600/s by default), with --adaptive self-tuning "
                    + "unless --adaptive says otherwise:",
                    "priority-surge: critical calls at 0.5x the capacity for 120s; sheddable ones at 0.25x for 30s, "
                            + "12x for 60s, 0.25x for 30s.",
                    "priority-surge-unloaded: the same without the surge (sheddable at 0.25x for 120s), to compare "
                            + "latencies with.",
                    "Add --reserve critical:4 --min-limit 8 for the surge with a reserve.",
                    NOISY_TENANT + ": a per-key run (as --tenants) of 4 tenants (or --tenants N), each calling at 0.6 "
                            + "of its share of the capacity (0.15x with 4) for 60s, tenant t0 at ten times that; "
                            + "each tenant's --limit defaults to its share of --downstream-capacity, the global "
                            + "limit starts at the capacity and adapts.",
                    NOISY_TENANT_QUIET + ": the same with t0 at the others' rate, to compare their waits with."})
    String scenarioName;

    @Option(names = "--limit", order = 50, paramLabel = "N", defaultValue = "32",
            converter = Converters.PositiveInteger.class,
            description = "The bulkhead's maxConcurrency: calls let through to the downstream at once. "
                    + "Default: ${DEFAULT-VALUE}.")
    int limit;

    @Option(names = "--queue", order = 51, paramLabel = "N", defaultValue = "64",
            converter = Converters.NonNegativeInteger.class,
            description = "The bulkhead's maxQueue: calls that may wait for a slot (0: refuse at once when full). "
                    + "Default: ${DEFAULT-VALUE}.")
    int queue;

    @Option(names = "--max-wait", order = 52, paramLabel = "DURATION", defaultValue = "100ms",
            converter = Converters.MaxWait.class,
            description = "The bulkhead's maxWait: a queued call is refused after waiting this long; none for no "
                    + "bound. Default: ${DEFAULT-VALUE}.")
    Duration maxWait;

    @Option(names = "--no-bulkhead", order = 53,
            description = "Call the downstream directly, unprotected: the baseline to compare with.")
    boolean noBulkhead;

    @Option(names = "--queue-order", order = 54, paramLabel = "ORDER", defaultValue = "fifo",
            converter = LowerCaseEnumConverter.Order.class,
            description = "fifo serves waiters in arrival order; lifo serves the newest first and lets a newcomer "
                    + "evict the oldest waiter when the queue is full. Default: ${DEFAULT-VALUE}.")
    dev.bulwark.QueueOrder queueOrder;

    @Option(names = "--adaptive", order = 55, paramLabel = "ALGORITHM",
            converter = LowerCaseEnumConverter.Adaptive.class,
            description = "Let the limit adapt to the downstream: self-tuning (needs no tuning; the one to reach "
                    + "for), aimd or gradient. --limit is then the starting limit; the report draws the limit over "
                    + "time. With --tenants the global limit adapts, from --global-limit.")
    AdaptiveAlgorithm adaptive;

    @Option(names = "--min-limit", order = 56, paramLabel = "N", defaultValue = "1",
            converter = Converters.PositiveInteger.class,
            description = "With --adaptive: the lowest the limit goes. Default: ${DEFAULT-VALUE}.")
    int minLimit;

    @Option(names = "--max-limit", order = 57, paramLabel = "N", defaultValue = "1000",
            converter = Converters.PositiveInteger.class,
            description = "With --adaptive: the highest the limit goes. Default: ${DEFAULT-VALUE}.")
    int maxLimit;

    @Option(names = "--latency-threshold", order = 58, paramLabel = "DURATION",
            converter = Converters.PositiveDuration.class,
            description = "With --adaptive aimd: a round trip whose mean latency is above this counts as overload "
                    + "and cuts the limit. Default: 1.25 times the mean service time (the simulated downstream "
                    + "never drops calls, so without a threshold only --timeout would ever cut the limit).")
    Duration latencyThreshold;

    @Option(names = "--tenants", order = 100, paramLabel = "N", converter = Converters.Population.class,
            description = "Per-key run: N tenants t0..t(N-1), each with its own partition (--limit, --queue, "
                    + "--max-wait) of a PartitionedBulkhead under --global-limit, with fair shares; each tenant "
                    + "makes Poisson calls at --rate. Runs in virtual time and reports each tenant's calls, refusals "
                    + "and waits. The downstream is a pure delay (--service-time) unless --downstream-capacity is "
                    + "given; --adaptive (which needs a capacity) makes the global limit adapt from --global-limit.")
    Integer tenants;

    @Option(names = "--noisy-tenant", order = 101, paramLabel = "FACTOR", defaultValue = "1",
            description = "With --tenants: tenant t0 calls at FACTOR times --rate (1: no noise; 0: t0 makes no "
                    + "calls). Default: ${DEFAULT-VALUE}.")
    double noisyFactor;

    @Option(names = "--noisy-limit", order = 102, paramLabel = "N", converter = Converters.PositiveInteger.class,
            description = "With --tenants: tenant t0's partition limit (a bulk or premium tenant allowed more at "
                    + "once). Default: --limit.")
    Integer noisyLimit;

    @Option(names = "--global-limit", order = 103, paramLabel = "N", defaultValue = "32",
            converter = Converters.PositiveInteger.class,
            description = "With --tenants: the limit all tenants share (its queue holds --queue per tenant, its "
                    + "max wait is --max-wait); with --adaptive, its starting value. Default: ${DEFAULT-VALUE}.")
    int globalLimit;

    @Option(names = "--global-fifo", order = 104,
            description = "With --tenants: serve the global limit in arrival order (PartitionedBulkhead's "
                    + "default) instead of by fair shares, to compare.")
    boolean globalFifo;
    // Classes of calls (issue 16): priorities, weights and reserved headroom.
    @Option(names = "--priority-mix", order = 59, paramLabel = "MIX",
            converter = MixConverters.PriorityMixConverter.class,
            description = {"Give each call a priority drawn from this mix (seeded), made with CallOptions: the "
                    + "queue serves higher priorities first and a newcomer evicts a lower-priority waiter from a full "
                    + "queue. The report adds the outcomes per priority. Default: every call normal.",
                    "Form: critical:20%%,normal:50%%,sheddable:30%% (critical, high, normal, low, sheddable; shares "
                            + "add up to 100%%)."})
    Mix<Priority> priorityMix;

    @Option(names = "--weights", order = 59, paramLabel = "MIX", converter = MixConverters.WeightMixConverter.class,
            description = {"Give each call a weight (slots it takes) drawn from this mix (seeded). The report adds "
                    + "the outcomes per weight. Default: every call weight 1.",
                    "Form: 1:70%%,2:20%%,4:10%% (no weight above --limit; shares add up to 100%%)."})
    Mix<Integer> weights;

    @Option(names = "--reserve", order = 59, paramLabel = "PRIORITY:SLOTS",
            converter = MixConverters.ReserveConverter.class,
            description = "Reserved headroom (Bulkhead.Builder.reserve): slots only that priority or a higher one "
                    + "may take, such as critical:2,high:1; together below --limit. Default: none.")
    MixConverters.Reserves reserve;

    @Option(names = "--report", order = 91, paramLabel = "FILE.html",
            description = "Also write a self-contained HTML page with charts (in flight and queued, throughput and "
                    + "rejections over time, latency distribution). Works offline.")
    Path report;

    @Override
    public Integer call() throws IOException {
        if (tenants != null || hasAny("--noisy-tenant", "--noisy-limit", "--global-limit", "--global-fifo")
                || NOISY_TENANT.equals(scenarioName) || NOISY_TENANT_QUIET.equals(scenarioName)) {
            return runTenants();
        }
        SimulationSettings settings = settings();
        checkReportPath();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        SimulationResult result = new Simulation(settings)
                .run(ProgressPrinter.create(scenario.progress, err, ""));
        switch (scenario.format) {
            case JSON:
                JsonReport.write(result, out);
                break;
            case CSV:
                CsvReport.writeHeader(out, false);
                CsvReport.writeRow(out, result, null);
                break;
            default:
                TextReport.write(result, out);
        }
        out.flush();
        if (report != null) {
            try {
                HtmlReport.write(result, report);
            } catch (java.io.IOException failed) {
                throw ReportPath.writeFailed(report, failed);
            }
            err.println("Report written to " + report.toAbsolutePath().normalize());
            err.flush();
        }
        return result.unexpectedFailure().isPresent() ? 1 : 0;
    }

    SimulationSettings settings() {
        LoadSchedule loadSchedule = loadSchedule();
        SimulationSettings.Builder builder = scenario.settings(spec,
                loadSchedule == null ? duration : loadSchedule.length());
        if (loadSchedule != null) {
            builder.arrivals(new ArrivalModel.OpenLoop(loadSchedule));
        }
        checkAdaptiveOptions();
        if (noBulkhead) {
            for (String option : new String[] {"--limit", "--queue", "--max-wait", "--queue-order", "--adaptive"}) {
                if (spec.commandLine().getParseResult().hasMatchedOption(option)) {
                    throw new ParameterException(spec.commandLine(),
                            "--no-bulkhead cannot be combined with " + option);
                }
            }
            builder.bulkhead(null);
        } else {
            builder.bulkhead(new BulkheadSettings(limit, queue, maxWait, queueOrder,
                    adaptiveLimit(limit, "--limit")));
        }
        builder.callMix(callMix(loadSchedule));
        return builder.build();
    }

    /** Refuses the options of an adaptive limit without {@code --adaptive} (or of AIMD without aimd). */
    private void checkAdaptiveOptions() {
        if (adaptive != AdaptiveAlgorithm.AIMD) {
            String needs = adaptive == null ? "--adaptive" : "--adaptive aimd";
            for (String option : adaptive == null ? new String[] {"--min-limit", "--max-limit", "--latency-threshold"}
                    : new String[] {"--latency-threshold"}) {
                if (spec.commandLine().getParseResult().hasMatchedOption(option)) {
                    throw new ParameterException(spec.commandLine(), option + " needs " + needs);
                }
            }
        }
    }

    /** The {@code --schedule} parsed against {@code --rate}, the {@code --scenario}'s, or {@code null}. */
    private LoadSchedule loadSchedule() {
        if (scenarioName != null) {
            return namedScenario();
        }
        if (schedule == null) {
            return null;
        }
        for (String option : new String[] {"--duration", "--clients"}) {
            if (hasAny(option)) {
                throw new ParameterException(spec.commandLine(), "--schedule cannot be combined with " + option
                        + (option.equals("--duration") ? ": the run lasts as long as the schedule"
                        : ": a schedule sets the rate of open-loop arrivals"));
            }
        }
        LoadSchedule parsed;
        try {
            parsed = LoadSchedule.parse(schedule, scenario.openLoopRate());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--schedule: " + e.getMessage());
        }
        if (parsed.priorityShares() != null && priorityMix != null) {
            throw new ParameterException(spec.commandLine(), "--schedule with a lane per priority cannot be "
                    + "combined with --priority-mix: the lanes set each call's priority");
        }
        if (scenario.virtualTime && parsed.length().compareTo(ScenarioOptions.MAX_VIRTUAL_DURATION) > 0) {
            throw new ParameterException(spec.commandLine(), "--schedule: --virtual-time runs at most "
                    + Durations.format(ScenarioOptions.MAX_VIRTUAL_DURATION) + " of virtual time, the schedule lasts "
                    + Durations.format(parsed.length()));
        }
        return parsed;
    }

    /** The schedule of {@code --scenario}; sets {@code --adaptive self-tuning} unless it was given. */
    private LoadSchedule namedScenario() {
        for (String option : new String[] {"--schedule", "--rate", "--clients", "--duration", "--priority-mix",
            "--no-bulkhead"}) {
            if (hasAny(option)) {
                throw new ParameterException(spec.commandLine(), "--scenario cannot be combined with " + option
                        + ": the scenario sets the arrivals");
            }
        }
        String text;
        switch (scenarioName) {
            case "priority-surge":
                text = "critical: 0.5x for 120s; sheddable: 0.25x for 30s, 12x for 60s, 0.25x for 30s";
                break;
            case "priority-surge-unloaded":
                text = "critical: 0.5x for 120s; sheddable: 0.25x for 120s";
                break;
            default:
                throw new ParameterException(spec.commandLine(), "--scenario: unknown scenario '" + scenarioName
                        + "'; expected priority-surge, priority-surge-unloaded, " + NOISY_TENANT + " or "
                        + NOISY_TENANT_QUIET);
        }
        if (adaptive == null) {
            adaptive = AdaptiveAlgorithm.SELF_TUNING;
        }
        // 1x is the rate the downstream serves at full speed: its capacity over the mean service time.
        Rate capacity = new Rate(scenario.downstreamCapacity * 1e9 / scenario.serviceTime.meanNanos());
        return LoadSchedule.parse(text, capacity);
    }

    /** The per-tenant run ({@code --tenants} or a tenant {@code --scenario}): its own settings, simulation, report. */
    private int runTenants() {
        boolean named = NOISY_TENANT.equals(scenarioName) || NOISY_TENANT_QUIET.equals(scenarioName);
        if (tenants == null && !named) {
            throw new ParameterException(spec.commandLine(),
                    "--noisy-tenant, --noisy-limit, --global-limit and --global-fifo need --tenants N");
        }
        for (String option : new String[] {"--no-bulkhead", "--queue-order", "--report", "--clients", "--think-time",
            "--retry", "--retry-delay", "--timeout", "--threads", "--drain", "--priority-mix", "--weights",
            "--reserve", "--schedule"}) {
            if (hasAny(option)) {
                throw new ParameterException(spec.commandLine(), (named ? "--scenario " + scenarioName
                        : "--tenants") + " cannot be combined with " + option);
            }
        }
        if (named) {
            for (String option : new String[] {"--rate", "--duration", "--noisy-tenant"}) {
                if (hasAny(option)) {
                    throw new ParameterException(spec.commandLine(), "--scenario cannot be combined with " + option
                            + ": the scenario sets the tenants' rates and the run's length");
                }
            }
        } else if (hasAny("--scenario")) {
            throw new ParameterException(spec.commandLine(), "--tenants cannot be combined with --scenario "
                    + scenarioName + "; the tenant scenarios are " + NOISY_TENANT + " and " + NOISY_TENANT_QUIET);
        }
        if (!(noisyFactor >= 0) || Double.isInfinite(noisyFactor)) {
            throw new ParameterException(spec.commandLine(),
                    "--noisy-tenant must be a number of at least 0 but was " + noisyFactor);
        }
        checkAdaptiveOptions();
        // Plain tenant runs keep their pure-delay downstream unless a capacity is given; the scenario always has one.
        boolean capacityBound = named || hasAny("--downstream-capacity");
        if (!capacityBound && hasAny("--degradation")) {
            throw new ParameterException(spec.commandLine(),
                    "--degradation needs --downstream-capacity N with --tenants: a pure-delay downstream cannot "
                            + "degrade");
        }
        if (!capacityBound && adaptive != null) {
            throw new ParameterException(spec.commandLine(), "--adaptive needs --downstream-capacity N with "
                    + "--tenants: over a pure-delay downstream latency never rises, so the limit has nothing to "
                    + "react to");
        }
        TenantSimulation.Settings settings = named ? noisyTenantScenario() : new TenantSimulation.Settings(tenants,
                noisyFactor, scenario.openLoopRate(), scenario.serviceTime, limit,
                noisyLimit == null ? limit : noisyLimit, queue, maxWait, globalLimit,
                adaptiveLimit(globalLimit, "--global-limit"), !globalFifo,
                capacityBound ? scenario.downstreamCapacity : null, scenario.degradation, duration,
                scenario.seedOrRandom());
        TenantSimulation.Result result = new TenantSimulation(settings).run();
        PrintWriter out = spec.commandLine().getOut();
        switch (scenario.format) {
            case JSON:
                TenantReport.writeJson(result, out);
                break;
            case CSV:
                TenantReport.writeCsv(result, out);
                break;
            default:
                TenantReport.writeText(result, out);
        }
        out.flush();
        return 0;
    }

    /**
     * The settings of {@code --scenario noisy-tenant} and its quiet twin, in multiples of the downstream's capacity
     * (--downstream-capacity calls of the mean --service-time at once): see the option's help.
     */
    private TenantSimulation.Settings noisyTenantScenario() {
        int count = tenants == null ? SCENARIO_TENANTS : tenants;
        if (count < 2) {
            throw new ParameterException(spec.commandLine(), "--scenario " + scenarioName + " needs at least 2 "
                    + "--tenants: the others' waits are what it measures");
        }
        if (adaptive == null) {
            adaptive = AdaptiveAlgorithm.SELF_TUNING;
        }
        int capacity = scenario.downstreamCapacity;
        Rate capacityRate = new Rate(capacity * 1e9 / scenario.serviceTime.meanNanos());
        // Each tenant at SCENARIO_SHARE_LOAD of its fair share of the capacity: all of them together leave headroom.
        Rate perTenant = new Rate(capacityRate.perSecond() * SCENARIO_SHARE_LOAD / count);
        int start = hasAny("--global-limit") ? globalLimit : capacity;
        // Each tenant's own limit is its share of the capacity, so that no tenant, the noisy one included, can
        // hold the others' share while the adaptive global limit moves (docs/per-key.md, the noisy-tenant scenario).
        int perTenantLimit = hasAny("--limit") ? limit : Math.max(1, capacity / count);
        return new TenantSimulation.Settings(count, NOISY_TENANT.equals(scenarioName) ? 10 : 1, perTenant,
                scenario.serviceTime, perTenantLimit, noisyLimit == null ? perTenantLimit : noisyLimit, queue, maxWait,
                start, adaptiveLimit(start, "--global-limit"), !globalFifo, capacity, scenario.degradation,
                SCENARIO_DURATION, scenario.seedOrRandom());
    }

    private boolean hasAny(String... options) {
        for (String option : options) {
            if (spec.commandLine().getParseResult().hasMatchedOption(option)) {
                return true;
            }
        }
        return false;
    }

    /** The classes of calls the options describe, or {@code null} when every call is weight 1 at normal. */
    private CallMix callMix(LoadSchedule loadSchedule) {
        Mix<Priority> priorities = loadSchedule != null && loadSchedule.priorityShares() != null
                ? loadSchedule.priorityShares() : priorityMix;
        if (priorities == null && weights == null && reserve == null) {
            return null;
        }
        if (noBulkhead) {
            String option = priorityMix != null ? "--priority-mix" : priorities != null ? "--schedule with priorities"
                    : weights != null ? "--weights" : "--reserve";
            throw new ParameterException(spec.commandLine(), "--no-bulkhead cannot be combined with " + option
                    + ": priorities, weights and reserves are the bulkhead's");
        }
        CallMix mix = new CallMix(priorities, weights, reserve == null ? Map.of() : reserve.slots());
        // With an adaptive limit the bulkhead may run at any limit down to --min-limit, so that is the bound.
        int ceiling = adaptive == null ? limit : minLimit;
        String ceilingName = (adaptive == null ? "--limit " : "--min-limit ") + ceiling;
        int reserved = mix.reserves().values().stream().mapToInt(Integer::intValue).sum();
        if (reserved >= ceiling) {
            throw new ParameterException(spec.commandLine(), "--reserve: the reserves add up to " + reserved
                    + " slots; they must stay below " + ceilingName);
        }
        int headroom = mix.lowestHeadroom();
        if (mix.maxWeight() > ceiling - headroom) {
            throw new ParameterException(spec.commandLine(), "--weights: weight " + mix.maxWeight() + " is above "
                    + ceilingName + (headroom == 0 ? "" : " less the " + headroom + " slots reserved above the "
                    + "lowest priority") + "; such a call could never run");
        }
        return mix;
    }

    /** The adaptive limit the options describe, or {@code null} for a fixed one. */
    private dev.bulwark.AdaptiveLimit adaptiveLimit(int start, String startOption) {
        if (adaptive == null) {
            return null;
        }
        if (maxLimit < minLimit) {
            throw new ParameterException(spec.commandLine(), "--max-limit (" + maxLimit
                    + ") must be at least --min-limit (" + minLimit + ")");
        }
        if (start < minLimit || start > maxLimit) {
            throw new ParameterException(spec.commandLine(), startOption + " (" + start + ") is the starting limit "
                    + "and must lie within --min-limit " + minLimit + " and --max-limit " + maxLimit);
        }
        if (adaptive == AdaptiveAlgorithm.AIMD) {
            dev.bulwark.AdaptiveLimit.Aimd.Builder aimd = dev.bulwark.AdaptiveLimit.aimd().minLimit(minLimit)
                    .maxLimit(maxLimit);
            Duration threshold = latencyThreshold != null ? latencyThreshold
                    : Duration.ofNanos(Math.max(1L, Math.round(1.25 * scenario.serviceTime.meanNanos())));
            return aimd.latencyThreshold(threshold).build();
        }
        if (adaptive == AdaptiveAlgorithm.SELF_TUNING) {
            return dev.bulwark.AdaptiveLimit.selfTuning().minLimit(minLimit).maxLimit(maxLimit).build();
        }
        return dev.bulwark.AdaptiveLimit.gradient().minLimit(minLimit).maxLimit(maxLimit).build();
    }

    private void checkReportPath() {
        if (report == null) {
            return;
        }
        Path parent = report.toAbsolutePath().getParent();
        if (parent == null || !Files.isDirectory(parent)) {
            throw new ParameterException(spec.commandLine(),
                    "--report: directory '" + parent + "' does not exist; expected a path such as run.html");
        }
        if (Files.isDirectory(report)) {
            throw new ParameterException(spec.commandLine(),
                    "--report: '" + report + "' is a directory; expected a file path such as run.html");
        }
    }
}
