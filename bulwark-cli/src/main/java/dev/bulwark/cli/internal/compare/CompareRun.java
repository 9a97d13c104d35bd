package dev.bulwark.cli.internal.compare;

import dev.bulwark.Scheduler;
import dev.bulwark.cli.internal.sim.ProcessorSharingModel;
import dev.bulwark.cli.internal.sim.VirtualClock;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;

/**
 * One contender on one scenario with one seed, in virtual time: a discrete-event loop over arrivals, the
 * downstream's completions, latency noise and client timeouts, as in the virtual-time simulator. The seed fixes
 * each arrival's time, work and noise, drawn in arrival order whatever happens to earlier calls, so every
 * contender faces exactly the same calls. Not thread-safe; each run has its own state.
 */
public final class CompareRun {

    private static final long SAMPLE_NANOS = 100_000_000L;
    private static final long TIMEOUT_NANOS = CompareScenario.CLIENT_TIMEOUT.toNanos();

    /**
     * What a run measured.
     *
     * @param goodputPerSecond calls answered within the client timeout, per second of the run (ramp-up included)
     * @param p99Millis the 99th percentile latency of those calls
     * @param limits the limit every 100 ms, from 0
     * @param goodputBySecond answered calls in each second
     * @param settleSeconds for each capacity step, seconds until the limit came within 25% of the new capacity to
     *     stay (inside that band for at least 90% of the rest of the phase; NaN when it never did)
     */
    public record Result(double goodputPerSecond, double p99Millis, int[] limits, double[] goodputBySecond,
                  double[] settleSeconds) {
    }

    private final CompareScenario scenario;
    private final long durationNanos;
    private final long seed;

    CompareRun(CompareScenario scenario, long durationNanos, long seed) {
        this.scenario = scenario;
        this.durationNanos = durationNanos;
        this.seed = seed;
    }

    Result run(Contender contender) {
        VirtualClock clock = new VirtualClock();
        ProcessorSharingModel<Call> downstream = new ProcessorSharingModel<>(scenario.capacity(), 1.0, 0L);
        Contender.Gate gate = contender.factory().open(scenario.startLimit(), clock);
        SplittableRandom root = new SplittableRandom(seed);
        SplittableRandom gaps = root.split();
        SplittableRandom work = root.split();
        SplittableRandom noise = root.split();
        // Split after the first three, so that the scenarios without these draw exactly what they drew before.
        SplittableRandom slowDraws = root.split();
        SplittableRandom phaseDraws = root.split();
        SplittableRandom clientDraws = root.split();
        Measured measured = new Measured(new Histogram(3), new double[(int) Math.ceil(durationNanos / 1e9)]);
        int[] limits = new int[(int) (durationNanos / SAMPLE_NANOS) + 1];

        OnOffSchedule onOff = scenario.bursts() == null ? null : new OnOffSchedule(scenario.bursts(), phaseDraws);
        double meanGap = 1e9 / scenario.ratePerSecond() * (onOff == null ? 1.0 : scenario.bursts().onShare());
        List<ProcessorSharingModel.Job<Call>> finished = new ArrayList<>();
        long nextArrival;
        if (scenario.clients() != null) {
            nextArrival = Long.MAX_VALUE;
            Arrivals arrivals = new Arrivals(clock, gate, downstream, measured);
            for (int i = 0; i < scenario.clients().count(); i++) {
                new Client(scenario.clients(), clientDraws.split(), arrivals).think();
            }
        } else {
            // The first arrival keeps the original rule (an unclamped draw from 0), so that old runs stay the same.
            long first = (long) (meanGap * gaps.nextExponential());
            nextArrival = onOff == null ? first : onOff.after(0L, Math.max(1L, first));
        }
        CompareScenario.SlowPeriods slow = scenario.slowPeriods();
        boolean slowNow = false;
        long slowAt = slow == null ? Long.MAX_VALUE : slowGap(slow, slowDraws);
        int nextStep = 0;
        int nextSample = 0;
        for (;;) {
            long nextFinish = downstream.nanosUntilNextFinish();
            long finishAt = nextFinish >= Long.MAX_VALUE / 2 ? Long.MAX_VALUE : clock.read() + Math.max(1L,
                    nextFinish);
            long stepAt = nextStep < scenario.steps().size()
                    ? (long) (scenario.steps().get(nextStep).atFraction() * durationNanos) : Long.MAX_VALUE;
            long sampleAt = nextSample < limits.length ? nextSample * SAMPLE_NANOS : Long.MAX_VALUE;
            long at = Math.min(Math.min(Math.min(nextArrival, finishAt), Math.min(clock.nextTaskAt(), stepAt)),
                    Math.min(sampleAt, slowAt));
            if (at >= durationNanos && sampleAt == Long.MAX_VALUE) {
                break;
            }
            clock.moveTo(at);
            if (at == sampleAt) {
                limits[nextSample++] = gate.limit();
            }
            if (at == stepAt) {
                downstream.changeCapacity(at, scenario.steps().get(nextStep++).capacity());
            }
            if (at == slowAt) {
                slowNow = !slowNow;
                downstream.changeSpeed(at, slowNow ? slow.speed() : 1.0);
                slowAt = at + (slowNow ? slowLength(slow, slowDraws) : slowGap(slow, slowDraws));
            }
            finished.clear();
            downstream.finishDue(at, finished);
            for (ProcessorSharingModel.Job<Call> job : finished) {
                job.payload().workDone(clock, measured);
            }
            clock.runDueBy(at);
            if (at == nextArrival) {
                long workNanos = scenario.serviceTime().sampleNanos(work);
                long noiseNanos = scenario.noiseIfAny().map(n -> n.sampleNanos(noise)).orElse(0L);
                Contender.Ticket ticket = gate.tryEnter();
                if (ticket != null) {
                    Call call = new Call(at, ticket, noiseNanos, null);
                    call.timeout = clock.schedule(() -> call.timedOut(), TIMEOUT_NANOS, TimeUnit.NANOSECONDS);
                    downstream.start(at, workNanos, call);
                }
                nextArrival = nextOpenLoopArrival(nextArrival, meanGap, gaps, onOff);
            }
        }
        Histogram latencyMicros = measured.latencyMicros();
        double p99 = latencyMicros.getTotalCount() == 0 ? Double.NaN
                : latencyMicros.getValueAtPercentile(99.0) / 1000.0;
        return new Result(measured.answered / (durationNanos / 1e9), p99, limits, measured.goodputBySecond(),
                settleSeconds(limits));
    }

    /** The next open-loop arrival after {@code previous}, or {@link Long#MAX_VALUE} once the run is over. */
    private long nextOpenLoopArrival(long previous, double meanGap, SplittableRandom gaps, OnOffSchedule onOff) {
        long gap = Math.max(1L, (long) (meanGap * gaps.nextExponential()));
        long next = onOff == null ? previous + gap : onOff.after(previous, gap);
        return next >= durationNanos ? Long.MAX_VALUE : next;
    }

    private static long slowGap(CompareScenario.SlowPeriods slow, SplittableRandom draws) {
        return Math.max(1L, (long) (slow.everySeconds() * 1e9 * (0.5 + draws.nextDouble())));
    }

    private static long slowLength(CompareScenario.SlowPeriods slow, SplittableRandom draws) {
        return Math.max(1L, (long) (1e9 * (slow.shortestSeconds() + (slow.longestSeconds() - slow.shortestSeconds())
                * draws.nextDouble())));
    }

    /** What a run counts: the latencies of answered calls, answered calls per second, and their total. */
    private static final class Measured {
        private final Histogram latencyMicros;
        private final double[] goodputBySecond;
        private long answered;

        Measured(Histogram latencyMicros, double[] goodputBySecond) {
            this.latencyMicros = latencyMicros;
            this.goodputBySecond = goodputBySecond;
        }

        Histogram latencyMicros() {
            return latencyMicros;
        }

        double[] goodputBySecond() {
            return goodputBySecond;
        }

        void answered(long latencyNanos, long at) {
            latencyMicros.recordValue(Math.max(0L, latencyNanos / 1_000L));
            int second = (int) (at / 1_000_000_000L);
            if (second < goodputBySecond.length) {
                goodputBySecond[second]++;
                answered++;
            }
        }
    }

    /**
     * The on/off switch of bursty arrivals. Arrival gaps are drawn in "on time" (the clock that runs only while
     * on); a gap that runs past the end of an on phase continues after the off phase that follows, which by the
     * exponential's lack of memory is exactly a Poisson process switched on and off.
     */
    private static final class OnOffSchedule {
        private final CompareScenario.OnOff phases;
        private final SplittableRandom draws;
        private long onEnd;

        OnOffSchedule(CompareScenario.OnOff phases, SplittableRandom draws) {
            this.phases = phases;
            this.draws = draws;
            this.onEnd = length(phases.onSeconds());
        }

        long after(long previous, long gap) {
            long next = previous + gap;
            while (next >= onEnd) {
                long offEnd = onEnd + length(phases.offSeconds());
                long carried = next - onEnd;
                onEnd = offEnd + length(phases.onSeconds());
                next = offEnd + carried;
            }
            return next;
        }

        private long length(double meanSeconds) {
            return Math.max(1L, (long) (meanSeconds * 1e9 * draws.nextExponential()));
        }
    }

    /** Starts closed-loop clients' calls through the gate into the downstream. */
    private final class Arrivals {
        private final VirtualClock clock;
        private final Contender.Gate gate;
        private final ProcessorSharingModel<Call> downstream;
        private final Measured measured;

        Arrivals(VirtualClock clock, Contender.Gate gate, ProcessorSharingModel<Call> downstream, Measured measured) {
            this.clock = clock;
            this.gate = gate;
            this.downstream = downstream;
            this.measured = measured;
        }

        /** Tries a call; {@code false} when the gate refused it (the client hears at once). */
        boolean start(long workNanos, Consumer<Boolean> ended) {
            Contender.Ticket ticket = gate.tryEnter();
            if (ticket == null) {
                return false;
            }
            long at = clock.read();
            Call call = new Call(at, ticket, 0L, ended);
            call.timeout = clock.schedule(() -> call.timedOut(), TIMEOUT_NANOS, TimeUnit.NANOSECONDS);
            downstream.start(at, workNanos, call);
            return true;
        }
    }

    /** A closed-loop client that retries: think, call, and on a refusal or a timeout back off and call again. */
    private final class Client {
        private final CompareScenario.RetryingClients settings;
        private final SplittableRandom draws;
        private final Arrivals arrivals;
        private long workNanos;
        private int retriesLeft;

        Client(CompareScenario.RetryingClients settings, SplittableRandom draws, Arrivals arrivals) {
            this.settings = settings;
            this.draws = draws;
            this.arrivals = arrivals;
        }

        void think() {
            after(settings.thinkMillis(), this::newCall);
        }

        private void newCall() {
            workNanos = scenario.serviceTime().sampleNanos(draws);
            retriesLeft = settings.retries();
            attempt();
        }

        private void attempt() {
            if (!arrivals.start(workNanos, answered -> {
                if (answered) {
                    think();
                } else {
                    retryOrGiveUp();
                }
            })) {
                retryOrGiveUp();
            }
        }

        private void retryOrGiveUp() {
            if (retriesLeft-- > 0) {
                after(settings.backoffMillis(), this::attempt);
            } else {
                think();
            }
        }

        private void after(double meanMillis, Runnable action) {
            long delay = Math.max(1L, (long) (meanMillis * 1e6 * draws.nextExponential()));
            if (arrivals.clock.read() + delay < durationNanos) {
                arrivals.clock.schedule(action, delay, TimeUnit.NANOSECONDS);
            }
        }
    }

    /**
     * For each step: how long until the limit has come within 25% of the new capacity to stay, that is the first
     * moment from which it is inside that band for at least 90% of the rest of the phase (brief excursions, such
     * as a re-measurement at a lower limit, do not undo settling; a limit that wanders off does). NaN when there is
     * no such moment. (An earlier version judged only the first entry into the band, so a limit that passed
     * through the band on its way down and then came back to it counted as never settling.)
     */
    private double[] settleSeconds(int[] limits) {
        List<CompareScenario.CapacityStep> steps = scenario.steps();
        double[] settle = new double[steps.size()];
        for (int i = 0; i < steps.size(); i++) {
            int from = (int) Math.ceil(steps.get(i).atFraction() * durationNanos / SAMPLE_NANOS);
            int to = Math.min(limits.length, i + 1 < steps.size()
                    ? (int) (steps.get(i + 1).atFraction() * durationNanos / SAMPLE_NANOS) : limits.length);
            int capacity = steps.get(i).capacity();
            settle[i] = Double.NaN;
            // Walk backwards, counting the samples in the band from s to the end of the phase.
            int inBand = 0;
            for (int s = to - 1; s >= from; s--) {
                boolean in = limits[s] >= 0.75 * capacity && limits[s] <= 1.25 * capacity;
                inBand += in ? 1 : 0;
                if (in && inBand >= 0.9 * (to - s)) {
                    settle[i] = (s - from) * SAMPLE_NANOS / 1e9;
                }
            }
        }
        return settle;
    }

    /** A call admitted to the downstream. */
    private static final class Call {
        final long arrivedAt;
        final Contender.Ticket ticket;
        final long noiseNanos;
        /** Told whether the call was answered ({@code true}) or given up; {@code null} for open-loop calls. */
        final Consumer<Boolean> ended;
        Scheduler.Cancellable timeout;
        boolean over;

        Call(long arrivedAt, Contender.Ticket ticket, long noiseNanos, Consumer<Boolean> ended) {
            this.arrivedAt = arrivedAt;
            this.ticket = ticket;
            this.noiseNanos = noiseNanos;
            this.ended = ended;
        }

        void workDone(VirtualClock clock, Measured measured) {
            if (over) {
                return; // its client gave up; the downstream finished the work anyway
            }
            if (noiseNanos == 0) {
                answer(clock, measured);
            } else {
                clock.schedule(() -> answer(clock, measured), noiseNanos, TimeUnit.NANOSECONDS);
            }
        }

        void answer(VirtualClock clock, Measured measured) {
            if (over) {
                return;
            }
            over = true;
            timeout.cancel();
            measured.answered(clock.read() - arrivedAt, clock.read());
            ticket.done(false);
            if (ended != null) {
                ended.accept(true);
            }
        }

        void timedOut() {
            if (!over) {
                over = true;
                ticket.done(true);
                if (ended != null) {
                    ended.accept(false);
                }
            }
        }
    }
}
