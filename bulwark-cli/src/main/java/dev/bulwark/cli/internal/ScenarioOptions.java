package dev.bulwark.cli.internal;

import dev.bulwark.cli.internal.sim.ArrivalModel;
import dev.bulwark.cli.internal.sim.Distribution;
import dev.bulwark.cli.internal.sim.Durations;
import dev.bulwark.cli.internal.sim.ExecutionMode;
import dev.bulwark.cli.internal.sim.Rate;
import dev.bulwark.cli.internal.sim.RetrySettings;
import dev.bulwark.cli.internal.sim.SimulationSettings;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The options that describe the scenario, shared by {@code simulate} and {@code sweep}: the arrivals, the
 * downstream, how calls are run, and the output. Filled in by picocli.
 */
final class ScenarioOptions {

    /** The default arrival rate when neither {@code --rate} nor {@code --clients} is given. */
    static final Rate DEFAULT_RATE = new Rate(2000);

    /**
     * The longest virtual-time run: a day. The run keeps a sample every 100 ms and computes every call, so a day at
     * 2000 calls/s is already an hour or so of computing with progress lines; {@code --duration 1000000h} used to
     * hang silently, filling the heap with samples.
     */
    static final Duration MAX_VIRTUAL_DURATION = Duration.ofHours(24);

    @ArgGroup(exclusive = true, multiplicity = "0..1")
    Arrivals arrivals;

    /** {@code --rate} and {@code --clients} exclude each other. */
    static final class Arrivals {
        @Option(names = "--rate", order = 20, paramLabel = "RATE", converter = Converters.RateConverter.class,
                description = {"Open-loop Poisson arrivals at this mean rate (the default, at 2000/s): calls keep "
                        + "arriving whatever happens to earlier ones, as from many independent users.",
                        "Forms: 2000/s, 120000/m, 5/ms."})
        Rate rate;

        @Option(names = "--clients", order = 21, paramLabel = "N", converter = Converters.Population.class,
                description = "Closed-loop arrivals instead: N clients that each make one call at a time and "
                        + "think (--think-time) between calls, as a worker pool does.")
        Integer clients;
    }

    @Option(names = "--think-time", order = 22, paramLabel = "DIST", defaultValue = "5ms",
            converter = Converters.DistributionConverter.class,
            description = "With --clients: the pause between a call's outcome and the client's next call; a "
                    + "duration or a distribution as for --service-time. Default: ${DEFAULT-VALUE}.")
    Distribution thinkTime;

    @Option(names = "--seed", order = 30, paramLabel = "N", converter = Converters.Seed.class,
            description = "Seed of the arrival times and service times; the same seed gives the same sequences. "
                    + "Default: a random seed, printed in the report.")
    Long seed;

    @Option(names = "--service-time", order = 40, paramLabel = "DIST", defaultValue = "exp:20ms",
            converter = Converters.ServiceTimeConverter.class,
            description = {"Work per call: its service time when the downstream is not overloaded. "
                    + "Default: ${DEFAULT-VALUE}.",
                    "Forms: fixed:20ms, exp:20ms (exponential with that mean), "
                            + "lognormal:median=20ms,p99=200ms, pareto:mean=20ms,shape=2.5 (a heavy tail; shape "
                            + "above 1)."})
    Distribution serviceTime;

    @Option(names = "--downstream-capacity", order = 41, paramLabel = "N", defaultValue = "32",
            converter = Converters.PositiveInteger.class,
            description = "Calls the downstream serves at full speed at once (its cores, its connections). Beyond "
                    + "N calls in flight it degrades: every call slows down, more the more it is overloaded. "
                    + "Default: ${DEFAULT-VALUE}.")
    int downstreamCapacity;

    @Option(names = "--degradation", order = 42, paramLabel = "D", defaultValue = "1",
            converter = Converters.NonNegativeDecimal.class,
            description = "How steeply the overloaded downstream's throughput falls: with n calls in flight "
                    + "beyond capacity c it completes c / (1 + D (n - c) / c) calls' worth of work, shared by all "
                    + "n. 0: pure sharing, no collapse. Default: ${DEFAULT-VALUE}.")
    double degradation;

    @Option(names = "--retry", order = 60, paramLabel = "N", converter = Converters.Retries.class,
            description = "Retry a call that was refused or timed out up to N times, 1 to 100 (dev.bulwark.Retry "
                    + "around the timeout and the bulkhead: each attempt asks for a slot again). Default: no retry.")
    Integer retry;

    @Option(names = "--retry-delay", order = 61, paramLabel = "DURATION", converter = Converters.PositiveDuration.class,
            description = "With --retry: the wait before each retry. Default: retry at once.")
    Duration retryDelay;

    @Option(names = "--timeout", order = 62, paramLabel = "DURATION", converter = Converters.PositiveDuration.class,
            description = "Give up on an attempt after this long, queue wait included (dev.bulwark.Timeout inside "
                    + "the retry, outside the bulkhead). The downstream still finishes work it was given. "
                    + "Default: no timeout.")
    Duration timeout;

    @Option(names = "--threads", order = 70,
            description = "Run each call with the blocking Bulkhead.call on a thread of its own instead of "
                    + "Bulkhead.callAsync with no thread per call. Virtual threads on JDK 21+; platform threads "
                    + "before, which cost far more to start: an unprotected run then needs thousands and falls "
                    + "behind (the report says by how much).")
    boolean threads;

    @Option(names = "--virtual-time", order = 71,
            description = "Run in virtual time: a discrete-event loop moves a simulated clock from event to event "
                    + "and drives the real bulkhead (callAsync) through its Ticker and Scheduler, so the run takes "
                    + "only the time to compute it, has no machine lateness, and the same seed gives the same "
                    + "report byte for byte. Cannot be combined with --threads, which needs real threads.")
    boolean virtualTime;

    @Option(names = "--drain", order = 80, paramLabel = "DURATION", defaultValue = "1s",
            converter = Converters.NonNegativeDuration.class,
            description = "After the arrivals stop, how long calls still queued or in flight may take to finish "
                    + "before they are cancelled. Default: ${DEFAULT-VALUE}.")
    Duration drain;

    @Option(names = "--format", order = 90, paramLabel = "FORMAT", defaultValue = "text",
            converter = LowerCaseEnumConverter.Format.class,
            description = "Report format on standard output: text, json or csv. Default: ${DEFAULT-VALUE}.")
    ReportFormat format;

    @Option(names = "--progress", order = 92, paramLabel = "MODE", defaultValue = "auto",
            converter = LowerCaseEnumConverter.Progress.class,
            description = "Progress on standard error: live (one line refreshed in place), plain (a line per "
                    + "second), off, or auto (live on a terminal, plain otherwise). Default: ${DEFAULT-VALUE}.")
    ProgressMode progress;

    /**
     * Builds the settings these options describe, with the given run length and no bulkhead (the caller adds
     * it). Checks the combinations picocli cannot.
     *
     * @throws ParameterException when options contradict each other
     */
    SimulationSettings.Builder settings(CommandSpec spec, Duration duration) {
        boolean closedLoop = arrivals != null && arrivals.clients != null;
        if (!closedLoop && spec.commandLine().getParseResult().hasMatchedOption("--think-time")) {
            throw new ParameterException(spec.commandLine(),
                    "--think-time applies only with --clients (closed-loop arrivals)");
        }
        if (virtualTime && threads) {
            throw new ParameterException(spec.commandLine(), "--virtual-time cannot be combined with --threads: "
                    + "blocking calls need real threads and real time");
        }
        if (virtualTime && duration.compareTo(MAX_VIRTUAL_DURATION) > 0) {
            throw new ParameterException(spec.commandLine(), "--duration: --virtual-time runs at most "
                    + Durations.format(MAX_VIRTUAL_DURATION) + " of virtual time, got '" + Durations.format(duration)
                    + "'");
        }
        if (retry == null && retryDelay != null) {
            throw new ParameterException(spec.commandLine(), "--retry-delay applies only with --retry N");
        }
        ArrivalModel model = closedLoop ? new ArrivalModel.ClosedLoop(arrivals.clients, thinkTime)
                : new ArrivalModel.OpenLoop(openLoopRate());
        return SimulationSettings.builder()
                .duration(duration)
                .arrivals(model)
                .seed(seedOrRandom())
                .serviceTime(serviceTime)
                .downstreamCapacity(downstreamCapacity)
                .degradation(degradation)
                .retry(retry == null ? null : new RetrySettings(retry, retryDelay))
                .timeout(timeout)
                .mode(virtualTime ? ExecutionMode.VIRTUAL_TIME
                        : threads ? ExecutionMode.THREADS : ExecutionMode.ASYNC)
                .drain(drain);
    }

    /** The open-loop arrival rate: {@code --rate}, or the default. */
    Rate openLoopRate() {
        return arrivals != null && arrivals.rate != null ? arrivals.rate : DEFAULT_RATE;
    }

    /** {@code --seed}, or a random one (printed in the report). */
    long seedOrRandom() {
        return seed != null ? seed : ThreadLocalRandom.current().nextLong(1, 1_000_000_000L);
    }
}
