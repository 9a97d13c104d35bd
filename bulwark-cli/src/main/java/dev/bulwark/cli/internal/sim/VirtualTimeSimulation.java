package dev.bulwark.cli.internal.sim;

import dev.bulwark.Bulkhead;
import dev.bulwark.CancellationSignal;
import dev.bulwark.Policy;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Runs one simulation in virtual time ({@link ExecutionMode#VIRTUAL_TIME}): the real {@link Bulkhead} (and the
 * real retry and timeout, if any), driven through {@code callAsync} by a discrete-event loop instead of the wall
 * clock.
 *
 * <h2>The event loop</h2>
 * <p>Two sources of events: the {@link VirtualClock}'s tasks (arrivals, closed-loop clients' next calls, the
 * timeline's samples, and whatever the bulkhead, timeout and retry schedule: wait timeouts, deadlines, retry
 * delays) and the {@link VirtualDownstream}'s next completion. Each turn takes the earlier of the two, moves the
 * clock there, completes the downstream calls due (a completion releases a slot, which may start a queued call
 * at once, at the same instant) and then runs the clock's tasks due. Ties are broken by a fixed rule (completions
 * first, then tasks in the order they were scheduled), so the same settings give the same events in the same
 * order, and so the same report, byte for byte. Nothing waits for the machine: there is no lateness to report,
 * and a run takes as long as computing its events (300 s at 1,600 calls/s is about half a million events).
 *
 * <p>The phases are those of {@link Simulation}: arrivals for the duration, a drain of up to
 * {@link SimulationSettings#drain()} (ending early once every call has ended), and an end at which queued calls
 * are cancelled through their signal and calls in flight are aborted by the downstream.
 *
 * <p>Not thread-safe, and needs none: everything happens on the calling thread.
 */
final class VirtualTimeSimulation {

    /** Wall-clock time between two progress lines: a virtual run races through many virtual seconds in one. */
    private static final long PROGRESS_INTERVAL_NANOS = 1_000_000_000L;

    private final SimulationSettings settings;
    private final VirtualClock clock = new VirtualClock();

    VirtualTimeSimulation(SimulationSettings settings) {
        this.settings = settings;
    }

    /**
     * Runs the simulation.
     *
     * @param progress told the run's state at most once per wall-clock second (a line per virtual second would
     *     flood the screen), and at the end
     * @param calls told of each call's end, on this thread
     * @return the result
     * @throws IllegalStateException when some call never ended (a fault of the simulator or the library)
     */
    SimulationResult run(ProgressListener progress, CallObserver calls) {
        RunMeasurements measurements = new RunMeasurements(clock, calls);
        BulkheadEventCollector collector = settings.bulkhead().isPresent() ? new BulkheadEventCollector(measurements)
                : null;
        Bulkhead bulkhead = settings.bulkhead()
                .map(limits -> Simulation.buildBulkhead(limits, settings.callMix().orElse(null), collector, clock,
                        clock))
                .orElse(null);
        PolicyEventCollector policyEvents = new PolicyEventCollector();
        Policy policy = Simulation.policy(settings, bulkhead, policyEvents, clock, clock);
        CallClasses classes = Simulation.callClasses(settings, bulkhead, policyEvents, clock, clock);
        CancellationSignal endOfRun = CancellationSignal.create();
        VirtualDownstream downstream = new VirtualDownstream(settings.downstreamCapacity(), settings.degradation(),
                settings.contention(), clock);
        AsyncCallLauncher launcher = new AsyncCallLauncher(policy, classes, bulkhead, downstream, endOfRun,
                measurements);
        long start = clock.read();
        long arrivalsEnd = start + settings.duration().toNanos();
        long drainEnd = arrivalsEnd + settings.drain().toNanos();
        TimelineSampler sampler = new TimelineSampler(start, clock, settings.duration(), measurements, downstream,
                bulkhead, new WallClockThrottle(progress, PROGRESS_INTERVAL_NANOS, System::nanoTime));
        scheduleSamples(sampler, settings.sampleInterval().toNanos());
        scheduleSlowdowns(downstream);
        scheduleArrivals(launcher, arrivalsEnd);

        boolean draining = false;
        for (;;) {
            long next = Math.min(clock.nextTaskAt(), downstream.nextFinishAt());
            if (!draining && next >= arrivalsEnd) {
                draining = true;
                clock.moveTo(arrivalsEnd);
                sampler.phase(Progress.Phase.DRAINING);
            }
            if (draining && (measurements.outstanding() == 0 || next > drainEnd)) {
                break;
            }
            clock.moveTo(next);
            downstream.finishDue();
            clock.runDueBy(next);
        }
        // Whatever is left is cut off at the end of the drain: queued calls through their signal, calls in
        // flight by the downstream. Both complete their futures at once, on this thread.
        if (measurements.outstanding() > 0) {
            clock.moveTo(drainEnd);
        }
        endOfRun.cancel();
        downstream.abortAll();
        long end = clock.read();
        if (measurements.outstanding() > 0) {
            throw new IllegalStateException(measurements.outstanding() + " calls never ended; counts so far: "
                    + measurements.counts().ended() + " ended of " + measurements.counts().arrivals());
        }
        DownstreamStatistics statistics = downstream.takeStatistics();
        sampler.phase(Progress.Phase.DONE);
        sampler.sample();
        return Simulation.result(settings, start, end, "callAsync in virtual time", measurements, collector,
                policyEvents, sampler, statistics, new SchedulingLag(0.0, 0.0, 0.0), classes);
    }

    private void scheduleSamples(TimelineSampler sampler, long interval) {
        clock.schedule(new Runnable() {
            @Override
            public void run() {
                sampler.sample();
                clock.schedule(this, interval, TimeUnit.NANOSECONDS);
            }
        }, interval, TimeUnit.NANOSECONDS);
    }

    /**
     * Schedules each slowdown's start and end on the clock, relative to the run's start (now). A clock task runs in
     * the same turn as the completions due at its time, after them; the loop then asks the downstream for its next
     * completion again, at the new speed.
     */
    private void scheduleSlowdowns(VirtualDownstream downstream) {
        for (Slowdown slowdown : settings.slowdowns()) {
            clock.schedule(() -> downstream.changeSpeed(slowdown.speed()), slowdown.from().toNanos(),
                    TimeUnit.NANOSECONDS);
            clock.schedule(() -> downstream.changeSpeed(1.0), slowdown.until().toNanos(), TimeUnit.NANOSECONDS);
        }
    }

    /** Schedules the arrivals: the same random sequences as the real-time {@link ArrivalProcess} draws. */
    private void scheduleArrivals(AsyncCallLauncher launcher, long end) {
        ArrivalModel model = settings.arrivals();
        SplittableRandom root = new SplittableRandom(settings.seed());
        if (model instanceof ArrivalModel.OpenLoop open && open.schedule() != null) {
            SplittableRandom gaps = root.split();
            SplittableRandom services = root.split();
            new Scheduled(new ScheduledArrivals(open.schedule(), open.trace(), gaps, root.split(),
                    end - clock.read()), services, clock.read(), launcher).next();
        } else if (model instanceof ArrivalModel.OpenLoop open) {
            SplittableRandom gaps = root.split();
            SplittableRandom services = root.split();
            new VirtualPoissonArrivals(clock, open.rate().meanIntervalNanos(), gaps, end, () -> launcher.launch(
                    clock.read(), settings.serviceTime().sampleNanos(services), null)).start();
        } else {
            ArrivalModel.ClosedLoop closed = (ArrivalModel.ClosedLoop) model;
            for (int i = 0; i < closed.clients(); i++) {
                new ClosedLoopClient(clock, clock, closed.thinkTime(), settings.serviceTime(), root.split(),
                        root.split(), end, launcher).thinkThenCall();
            }
        }
    }

    /** Arrivals on a {@link LoadSchedule}: each arrival schedules the next. */
    private final class Scheduled implements Runnable {
        private final ScheduledArrivals arrivals;
        private final SplittableRandom services;
        private final long start;
        private final AsyncCallLauncher launcher;

        Scheduled(ScheduledArrivals arrivals, SplittableRandom services, long start, AsyncCallLauncher launcher) {
            this.arrivals = arrivals;
            this.services = services;
            this.start = start;
            this.launcher = launcher;
        }

        void next() {
            long offset = arrivals.next();
            if (offset >= 0) {
                clock.schedule(this, start + offset - clock.read(), TimeUnit.NANOSECONDS);
            }
        }

        @Override
        public void run() {
            launcher.launch(clock.read(), settings.serviceTime().sampleNanos(services), arrivals.lane(),
                    arrivals.priority(), null);
            next();
        }
    }
}
