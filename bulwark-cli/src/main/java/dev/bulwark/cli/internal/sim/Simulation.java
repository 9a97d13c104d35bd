package dev.bulwark.cli.internal.sim;

import dev.bulwark.Bulkhead;
import dev.bulwark.CancellationSignal;
import dev.bulwark.Pipeline;
import dev.bulwark.Policy;
import dev.bulwark.Retry;
import dev.bulwark.Scheduler;
import dev.bulwark.Ticker;
import dev.bulwark.Timeout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * Runs one simulation in real time: the real {@link Bulkhead} (built from the settings, with a listener that
 * feeds the report) in front of a {@link SimulatedDownstream}, fed by an {@link ArrivalProcess}. With a retry or
 * a timeout, each call goes through the real {@code Pipeline.of(retry, timeout, bulkhead)}: every attempt has its
 * own deadline, which covers its wait for a slot and its time at the downstream, and asks for a slot again.
 *
 * <p>A run has three phases. <b>Arrivals</b>: for {@link SimulationSettings#duration()}, calls arrive and go
 * through the bulkhead. <b>Drain</b>: arrivals stop; calls still queued or in flight may finish for up to
 * {@link SimulationSettings#drain()}. <b>End</b>: whatever is left is cancelled (queued calls leave the bulkhead's
 * queue through their {@link CancellationSignal}; calls in flight are abandoned by the downstream), so that every
 * arrival has exactly one outcome. A run therefore takes its duration plus at most the drain, plus a moment.
 *
 * <p>Thread-safe: each {@link #run} has state of its own, on the calling thread (which generates the open-loop
 * arrivals) and on threads it starts and stops; runs on different threads do not interfere, though they share the
 * machine and so its punctuality ({@link SchedulingLag}).
 */
public final class Simulation {

    /** How long the end phase may take before the run is declared broken (a call lost its outcome). */
    private static final long END_TIMEOUT_NANOS = 10_000_000_000L;

    /** How long the unmeasured warm-up run lasts. */
    private static final Duration WARM_UP = Duration.ofMillis(300);

    /** Whether this JVM has run a warm-up already. */
    private static final AtomicBoolean WARMED_UP = new AtomicBoolean();

    private final SimulationSettings settings;
    private final Ticker ticker = Ticker.system();

    /**
     * Prepares a run.
     *
     * @param settings the run's settings
     */
    public Simulation(SimulationSettings settings) {
        this.settings = settings;
    }

    /**
     * Runs the simulation and returns what it measured. Blocks for the run's duration plus the drain (and, the
     * first time in a JVM, for an unmeasured warm-up of 0.3 s).
     *
     * @param progress told the run's state at every sample
     * @return the result
     * @throws IllegalStateException when some call never ended (a fault of the simulator or the library)
     * @throws CancellationException when the calling thread was interrupted (the run is abandoned)
     */
    public SimulationResult run(ProgressListener progress) {
        return run(progress, CallObserver.NONE);
    }

    /**
     * Runs the simulation as {@link #run(ProgressListener)} does, and tells {@code calls} of every call as it ends.
     *
     * @param progress told the run's state at every sample
     * @param calls told of each call's end (in real time from several threads: it must then be thread-safe)
     * @return the result
     * @throws IllegalStateException when some call never ended (a fault of the simulator or the library)
     * @throws CancellationException when the calling thread was interrupted (the run is abandoned)
     */
    public SimulationResult run(ProgressListener progress, CallObserver calls) {
        if (settings.mode() == ExecutionMode.VIRTUAL_TIME) {
            return new VirtualTimeSimulation(settings).run(progress, calls);
        }
        warmUpOnce();
        return measure(progress, calls);
    }

    /**
     * The first run in a JVM loads classes and compiles the hot paths while calls arrive, which would make its
     * first few hundred milliseconds late and bursty. A short run of the same scenario first, whose result is
     * thrown away, takes that cost out of the measurement.
     */
    private void warmUpOnce() {
        if (WARMED_UP.compareAndSet(false, true)) {
            new Simulation(settings.toBuilder().duration(WARM_UP).drain(Duration.ZERO).seed(settings.seed() + 1)
                    .build()).measure(ProgressListener.none(), CallObserver.NONE);
        }
    }

    private SimulationResult measure(ProgressListener progress, CallObserver calls) {
        RunMeasurements measurements = new RunMeasurements(ticker, calls);
        BulkheadEventCollector collector = settings.bulkhead().isPresent() ? new BulkheadEventCollector(measurements)
                : null;
        Bulkhead bulkhead = settings.bulkhead().map(limits -> buildBulkhead(limits, settings.callMix().orElse(null),
                collector, ticker, Scheduler.shared())).orElse(null);
        PolicyEventCollector policyEvents = new PolicyEventCollector();
        Policy policy = policy(settings, bulkhead, policyEvents, ticker, Scheduler.shared());
        CallClasses classes = callClasses(settings, bulkhead, policyEvents, ticker, Scheduler.shared());
        CancellationSignal endOfRun = CancellationSignal.create();
        ScheduledExecutorService sampling = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "bulwark-sim-sampler");
            thread.setDaemon(true);
            return thread;
        });
        try (SimulatedDownstream downstream = new SimulatedDownstream(settings.downstreamCapacity(),
                settings.degradation(), settings.contention(), ticker);
             CallLauncher launcher = settings.mode() == ExecutionMode.ASYNC
                     ? new AsyncCallLauncher(policy, classes, bulkhead, downstream, endOfRun, measurements)
                     : new ThreadPerCallLauncher(policy, classes, downstream, endOfRun, measurements);
             ArrivalProcess arrivals = ArrivalProcess.of(settings, ticker, measurements)) {
            long start = ticker.read();
            TimelineSampler sampler = new TimelineSampler(start, ticker, settings.duration(), measurements,
                    downstream, bulkhead, progress);
            long interval = settings.sampleInterval().toNanos();
            sampling.scheduleAtFixedRate(sampler::sample, interval, interval, TimeUnit.NANOSECONDS);

            arrivals.run(start, settings.duration().toNanos(), launcher);
            boolean interrupted = Thread.interrupted();

            sampler.phase(Progress.Phase.DRAINING);
            long drainDeadline = Math.max(ticker.read(), start + settings.duration().toNanos())
                    + settings.drain().toNanos();
            if (!interrupted) {
                awaitEveryCallEnded(measurements, drainDeadline);
            }
            // Whatever is left is cut off: queued calls through their signal, calls in flight by the downstream.
            endOfRun.cancel();
            downstream.abortAll();
            if (!awaitEveryCallEnded(measurements, ticker.read() + END_TIMEOUT_NANOS)) {
                throw new IllegalStateException(measurements.outstanding() + " calls never ended; counts so far: "
                        + measurements.counts().ended() + " ended of " + measurements.counts().arrivals());
            }
            long end = ticker.read();
            DownstreamStatistics downstreamStatistics = downstream.takeStatistics();

            sampling.shutdown();
            awaitTermination(sampling);
            sampler.phase(Progress.Phase.DONE);
            sampler.sample();
            if (interrupted) {
                Thread.currentThread().interrupt();
                throw new CancellationException("the simulation was interrupted");
            }
            return result(settings, start, end, launcher.describe(), measurements, collector, policyEvents,
                    sampler, downstreamStatistics, schedulingLag(measurements, downstreamStatistics), classes);
        } finally {
            sampling.shutdownNow();
        }
    }

    /** The bulkhead under test, on the given clock and scheduler (the real ones, or virtual time's). */
    static Bulkhead buildBulkhead(BulkheadSettings limits, CallMix mix, BulkheadEventCollector collector,
                                  Ticker ticker, Scheduler scheduler) {
        Bulkhead.Builder builder = Bulkhead.builder().name("simulated").maxConcurrency(limits.limit())
                .maxQueue(limits.queue()).queueOrder(limits.queueOrder()).listener(collector).ticker(ticker)
                .scheduler(scheduler);
        limits.maxWaitIfBounded().ifPresent(builder::maxWait);
        limits.adaptiveIfAny().ifPresent(builder::adaptive);
        if (mix != null) {
            mix.reserves().forEach(builder::reserve);
        }
        return builder.build();
    }

    /** The policies each call goes through, outermost first, or {@code null} to call the downstream directly. */
    static Policy policy(SimulationSettings settings, Bulkhead bulkhead, PolicyEventCollector events, Ticker ticker,
                         Scheduler scheduler) {
        List<Policy> policies = outerPolicies(settings, events, ticker, scheduler);
        if (bulkhead != null) {
            policies.add(bulkhead);
        }
        if (policies.isEmpty()) {
            return null;
        }
        return policies.size() == 1 ? policies.get(0) : Pipeline.of(policies.toArray(new Policy[0]));
    }

    /** The retry and the timeout around the bulkhead, outermost first; empty for neither. */
    static List<Policy> outerPolicies(SimulationSettings settings, PolicyEventCollector events, Ticker ticker,
                                      Scheduler scheduler) {
        List<Policy> policies = new ArrayList<>();
        settings.retry().ifPresent(retry -> {
            Retry.Builder builder = Retry.builder().name("simulated").maxRetries(retry.maxRetries()).listener(events)
                    .ticker(ticker).scheduler(scheduler);
            if (retry.delay() != null) {
                builder.delay(retry.delay());
            }
            policies.add(builder.build());
        });
        settings.timeout().ifPresent(timeout -> policies.add(Timeout.builder().name("simulated").timeout(timeout)
                .listener(events).ticker(ticker).scheduler(scheduler).build()));
        return policies;
    }

    /**
     * The classes of the calls, when the settings give a priority or weight mix and there is a bulkhead; else
     * {@code null}, and every call is made without options.
     */
    static CallClasses callClasses(SimulationSettings settings, Bulkhead bulkhead, PolicyEventCollector events,
                                   Ticker ticker, Scheduler scheduler) {
        if (bulkhead == null || settings.callMix().isEmpty()) {
            return null;
        }
        return new CallClasses(settings.callMix().get(), settings.seed(), bulkhead,
                outerPolicies(settings, events, ticker, scheduler), ticker);
    }

    /** Polls until no call is outstanding or the deadline passes; returns whether every call ended. */
    private boolean awaitEveryCallEnded(RunMeasurements measurements, long deadline) {
        while (measurements.outstanding() > 0) {
            if (ticker.read() - deadline >= 0) {
                return false;
            }
            // Polling costs one read a millisecond; a run has no event to wait on that would be cheaper.
            LockSupport.parkNanos(1_000_000L);
        }
        return true;
    }

    private SchedulingLag schedulingLag(RunMeasurements measurements, DownstreamStatistics downstream) {
        Histogram arrivalLag = measurements.takeArrivalLag();
        boolean open = settings.arrivals() instanceof ArrivalModel.OpenLoop && arrivalLag.getTotalCount() > 0;
        return new SchedulingLag(open ? arrivalLag.getValueAtPercentile(99.0) / 1000.0 : Double.NaN,
                open ? arrivalLag.getMaxValue() / 1000.0 : Double.NaN, downstream.latestCompletionNanos() / 1e6);
    }

    private static void awaitTermination(ScheduledExecutorService sampling) {
        try {
            sampling.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Assembles a run's result; shared by real and virtual time. */
    static SimulationResult result(SimulationSettings settings, long start, long end, String callStyle,
                                   RunMeasurements measurements, BulkheadEventCollector collector,
                                   PolicyEventCollector policyEvents, TimelineSampler sampler,
                                   DownstreamStatistics downstream, SchedulingLag lag, CallClasses classes) {
        long elapsedNanos = Math.max(1L, end - start);
        Histogram endToEnd = sampler.endToEndMicros();
        Histogram queueWait = sampler.queueWaitMicros();
        double meanTimeInDownstreamMillis = downstream.completed() == 0 ? Double.NaN
                : downstream.completedNanos() / 1e6 / downstream.completed();
        LittlesLaw littlesLaw = new LittlesLaw(downstream.inFlightIntegral() / elapsedNanos,
                downstream.completed() / (elapsedNanos / 1e9), meanTimeInDownstreamMillis);
        SimulationResult.Builder result = SimulationResult.builder()
                .settings(settings)
                .callStyle(callStyle)
                .elapsed(Duration.ofNanos(elapsedNanos))
                .counts(measurements.counts())
                .endToEnd(LatencySummary.ofMicros(endToEnd), LatencyBucket.ofMicros(endToEnd))
                .queueWait(LatencySummary.ofMicros(queueWait), LatencyBucket.ofMicros(queueWait))
                .peaks(downstream.peakInFlight(), measurements.peakQueued())
                .littlesLaw(littlesLaw)
                .policyEvents(policyEvents.retries(), policyEvents.timedOutAttempts())
                .schedulingLag(lag)
                .timeline(sampler.samples());
        if (collector != null) {
            result.bulkheadEvents(collector.counts());
        }
        measurements.firstUnexpectedFailure().ifPresent(failure -> result.unexpectedFailure(failure.toString()));
        if (classes != null) {
            classes.byPriority().ifPresent(result::breakdown);
            classes.byWeight().ifPresent(result::breakdown);
        }
        return result.build();
    }
}
