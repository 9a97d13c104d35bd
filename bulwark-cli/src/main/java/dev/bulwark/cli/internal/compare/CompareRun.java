package dev.bulwark.cli.internal.compare;

import dev.bulwark.Scheduler;
import dev.bulwark.cli.internal.sim.ProcessorSharingModel;
import dev.bulwark.cli.internal.sim.VirtualClock;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
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
        double meanGap = 1e9 / scenario.ratePerSecond();
        Histogram latencyMicros = new Histogram(3);
        int seconds = (int) Math.ceil(durationNanos / 1e9);
        double[] goodputBySecond = new double[seconds];
        int[] limits = new int[(int) (durationNanos / SAMPLE_NANOS) + 1];
        long[] answered = new long[1];

        List<ProcessorSharingModel.Job<Call>> finished = new ArrayList<>();
        long nextArrival = (long) (meanGap * gaps.nextExponential());
        int nextStep = 0;
        int nextSample = 0;
        for (;;) {
            long nextFinish = downstream.nanosUntilNextFinish();
            long finishAt = nextFinish == Long.MAX_VALUE ? Long.MAX_VALUE : clock.read() + Math.max(1L, nextFinish);
            long stepAt = nextStep < scenario.steps().size()
                    ? (long) (scenario.steps().get(nextStep).atFraction() * durationNanos) : Long.MAX_VALUE;
            long sampleAt = nextSample < limits.length ? nextSample * SAMPLE_NANOS : Long.MAX_VALUE;
            long at = Math.min(Math.min(Math.min(nextArrival, finishAt), Math.min(clock.nextTaskAt(), stepAt)),
                    sampleAt);
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
            finished.clear();
            downstream.finishDue(at, finished);
            for (ProcessorSharingModel.Job<Call> job : finished) {
                job.payload().workDone(clock, latencyMicros, goodputBySecond, answered);
            }
            clock.runDueBy(at);
            if (at == nextArrival) {
                long workNanos = scenario.serviceTime().sampleNanos(work);
                long noiseNanos = scenario.noiseIfAny().map(n -> n.sampleNanos(noise)).orElse(0L);
                Contender.Ticket ticket = gate.tryEnter();
                if (ticket != null) {
                    Call call = new Call(at, ticket, noiseNanos);
                    call.timeout = clock.schedule(call::timedOut, TIMEOUT_NANOS, TimeUnit.NANOSECONDS);
                    downstream.start(at, workNanos, call);
                }
                nextArrival += Math.max(1L, (long) (meanGap * gaps.nextExponential()));
                if (nextArrival >= durationNanos) {
                    nextArrival = Long.MAX_VALUE;
                }
            }
        }
        double p99 = latencyMicros.getTotalCount() == 0 ? Double.NaN
                : latencyMicros.getValueAtPercentile(99.0) / 1000.0;
        return new Result(answered[0] / (durationNanos / 1e9), p99, limits, goodputBySecond,
                settleSeconds(limits));
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
        Scheduler.Cancellable timeout;
        boolean ended;

        Call(long arrivedAt, Contender.Ticket ticket, long noiseNanos) {
            this.arrivedAt = arrivedAt;
            this.ticket = ticket;
            this.noiseNanos = noiseNanos;
        }

        void workDone(VirtualClock clock, Histogram latencyMicros, double[] goodputBySecond, long[] answered) {
            if (ended) {
                return; // its client gave up; the downstream finished the work anyway
            }
            if (noiseNanos == 0) {
                answer(clock, latencyMicros, goodputBySecond, answered);
            } else {
                clock.schedule(() -> answer(clock, latencyMicros, goodputBySecond, answered), noiseNanos,
                        TimeUnit.NANOSECONDS);
            }
        }

        void answer(VirtualClock clock, Histogram latencyMicros, double[] goodputBySecond, long[] answered) {
            if (ended) {
                return;
            }
            ended = true;
            timeout.cancel();
            long latency = clock.read() - arrivedAt;
            latencyMicros.recordValue(Math.max(0L, latency / 1_000L));
            int second = (int) (clock.read() / 1_000_000_000L);
            if (second < goodputBySecond.length) {
                goodputBySecond[second]++;
                answered[0]++;
            }
            ticket.done(false);
        }

        void timedOut() {
            if (!ended) {
                ended = true;
                ticket.done(true);
            }
        }
    }
}
