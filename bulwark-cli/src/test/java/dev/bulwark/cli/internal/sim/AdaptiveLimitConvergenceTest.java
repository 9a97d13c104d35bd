package dev.bulwark.cli.internal.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.AdaptiveLimit;
import dev.bulwark.Bulkhead;
import dev.bulwark.Permit;
import dev.bulwark.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 9's acceptance figure, in virtual time: on the simulator's downstream with a capacity of 20 (service time
 * rising beyond 20 calls in flight), an adaptive bulkhead with the default gradient limit settles between 15 and 30
 * within 30 seconds, and its goodput is within 10% of the best fixed limit a sweep finds. Started at 5, seeds 7, 11,
 * 23, 42 and 77 (pass {@code -Dbulwark.convergence.seed=N}) gave 95, 93, 94, 95 and 92% of the best fixed goodput;
 * AIMD 91 to 93% from every start (5, 20 or 60) and seed.
 *
 * <p>The real {@link Bulkhead} runs against the simulator's real {@link ProcessorSharingModel}, but time is
 * virtual: a discrete-event loop advances a fake clock from event to event (arrivals, completions, wait timeouts),
 * so a 60-second run takes well under a second, and the outcome does not depend on how busy the machine is. The
 * real-time simulator ({@code bulwark simulate --adaptive gradient}) shows the same behaviour, plus its noise.
 */
class AdaptiveLimitConvergenceTest {

    private static final int CAPACITY = 20;
    private static final double RATE_PER_SECOND = 1500;
    private static final Distribution SERVICE_TIME = new Distribution.Exponential(Duration.ofMillis(20));
    private static final long RUN = TimeUnit.SECONDS.toNanos(60);
    private static final long SETTLE_BY = TimeUnit.SECONDS.toNanos(30);
    private static final long SEED = Long.getLong("bulwark.convergence.seed", 11);

    /** What one virtual run measured. */
    record Run(double goodputPerSecond, int minLimitAfterSettling, int maxLimitAfterSettling, double meanLimit) {
    }

    /**
     * Started low, as README advises: the gradient limiter's baseline comes from its first window, so a start at
     * the capacity can undershoot for a while (seed 7 from 20: 86% of the best fixed goodput) and a start far above
     * it can keep the limit too high (seeds 23 and 77 from 60: 63 to 66%). AIMD, below, does not depend on the start.
     */
    @Test
    void gradientStartedLowSettlesNearCapacityAndKeepsGoodputWithinTenPercentOfTheBestFixedLimit() {
        double bestFixed = bestFixedGoodput();

        Run gradient = run(Bulkhead.builder().maxConcurrency(5)
                .adaptive(AdaptiveLimit.gradient().minLimit(1).maxLimit(200).build()), SEED);

        System.out.printf("gradient from 5: goodput %.0f/s (best fixed %.0f/s), limit after 30 s %d..%d, mean %.1f%n",
                gradient.goodputPerSecond(), bestFixed, gradient.minLimitAfterSettling(),
                gradient.maxLimitAfterSettling(), gradient.meanLimit());
        assertThat(gradient.minLimitAfterSettling()).isGreaterThanOrEqualTo(15);
        assertThat(gradient.maxLimitAfterSettling()).isLessThanOrEqualTo(30);
        assertThat(gradient.goodputPerSecond()).isGreaterThanOrEqualTo(0.9 * bestFixed);
    }

    @ParameterizedTest(name = "starting at {0}")
    @ValueSource(ints = {5, 20, 60})
    void aimdSettlesNearCapacityAndKeepsGoodputWithinTenPercentOfTheBestFixedLimit(int initialLimit) {
        double bestFixed = bestFixedGoodput();

        Run aimd = run(Bulkhead.builder().maxConcurrency(initialLimit).adaptive(AdaptiveLimit.aimd().minLimit(1)
                .maxLimit(200).latencyThreshold(Duration.ofMillis(25)).build()), SEED);

        System.out.printf("aimd from %d: goodput %.0f/s (best fixed %.0f/s), limit after 30 s %d..%d, mean %.1f%n",
                initialLimit, aimd.goodputPerSecond(), bestFixed, aimd.minLimitAfterSettling(),
                aimd.maxLimitAfterSettling(), aimd.meanLimit());
        // AIMD saws by design (+1 per round trip, x0.9 on a slow one): around the same mean as the gradient
        // limiter it dips a little lower, to 14 with some seeds.
        assertThat(aimd.minLimitAfterSettling()).isGreaterThanOrEqualTo(12);
        assertThat(aimd.maxLimitAfterSettling()).isLessThanOrEqualTo(30);
        assertThat(aimd.goodputPerSecond()).isGreaterThanOrEqualTo(0.9 * bestFixed);
    }

    /**
     * The self-tuning limit, with no setting at all, from any start: here behind a queue of 64 with a maximum
     * wait of 100 ms (the queue absorbs bursts; the limit still settles at the capacity).
     */
    @ParameterizedTest(name = "starting at {0}")
    @ValueSource(ints = {5, 20, 60})
    void selfTuningSettlesNearCapacityFromAnyStartWithoutSettings(int initialLimit) {
        double bestFixed = bestFixedGoodput();

        Run selfTuning = run(Bulkhead.builder().maxConcurrency(initialLimit)
                .adaptive(AdaptiveLimit.selfTuning().build()), SEED);

        System.out.printf("selfTuning from %d: goodput %.0f/s (best fixed %.0f/s), limit after 30 s %d..%d, mean "
                        + "%.1f%n", initialLimit, selfTuning.goodputPerSecond(), bestFixed,
                selfTuning.minLimitAfterSettling(), selfTuning.maxLimitAfterSettling(), selfTuning.meanLimit());
        // Re-measuring the baseline pins the limit at three quarters for a moment every 10 s or so.
        assertThat(selfTuning.minLimitAfterSettling()).isGreaterThanOrEqualTo(12);
        assertThat(selfTuning.maxLimitAfterSettling()).isLessThanOrEqualTo(30);
        assertThat(selfTuning.goodputPerSecond()).isGreaterThanOrEqualTo(0.9 * bestFixed);
    }

    /** The best goodput over a sweep of fixed limits, as {@code bulwark sweep} would find it. */
    private static double bestFixedGoodput() {
        double best = 0;
        for (int limit = 14; limit <= 28; limit += 2) {
            best = Math.max(best, run(Bulkhead.builder().maxConcurrency(limit), SEED).goodputPerSecond());
        }
        return best;
    }

    /** Runs the scenario in virtual time with a bulkhead configured by {@code builder} (queue and wait added). */
    private static Run run(Bulkhead.Builder builder, long seed) {
        VirtualTime time = new VirtualTime();
        Bulkhead bulkhead = builder.maxQueue(64).maxWait(Duration.ofMillis(100)).ticker(time::now).scheduler(time)
                .build();
        ProcessorSharingModel<Permit> downstream = new ProcessorSharingModel<>(CAPACITY, 1.0, 0L);
        SplittableRandom arrivals = new SplittableRandom(seed);
        SplittableRandom work = new SplittableRandom(seed * 31 + 7);
        long nextArrival = exponential(arrivals, 1e9 / RATE_PER_SECOND);
        long served = 0;
        long servedFrom = RUN - TimeUnit.SECONDS.toNanos(20);
        int minLimit = Integer.MAX_VALUE;
        int maxLimit = 0;
        double limitSum = 0;
        long limitSamples = 0;
        long nextSample = 0;
        List<ProcessorSharingModel.Job<Permit>> finished = new ArrayList<>();
        while (time.now() < RUN) {
            long nextFinish = downstream.nanosUntilNextFinish();
            long finishAt = nextFinish == Long.MAX_VALUE ? Long.MAX_VALUE : time.now() + Math.max(1L, nextFinish);
            long at = Math.min(Math.min(nextArrival, finishAt), Math.min(time.nextTaskAt(), nextSample));
            time.advanceTo(at);
            if (at == nextSample) {
                int limit = bulkhead.maxConcurrency();
                if (at >= SETTLE_BY) {
                    minLimit = Math.min(minLimit, limit);
                    maxLimit = Math.max(maxLimit, limit);
                }
                limitSum += limit;
                limitSamples++;
                nextSample += TimeUnit.MILLISECONDS.toNanos(100);
            }
            finished.clear();
            downstream.finishDue(at, finished);
            for (ProcessorSharingModel.Job<Permit> job : finished) {
                if (at >= servedFrom) {
                    served++;
                }
                job.payload().close(); // may grant a waiter, which starts its call at once (below)
            }
            if (at == nextArrival) {
                CompletableFuture<Permit> slot = bulkhead.acquireAsync();
                slot.thenAccept(permit -> downstream.start(time.now(), SERVICE_TIME.sampleNanos(work),
                        permit));
                nextArrival += exponential(arrivals, 1e9 / RATE_PER_SECOND);
            }
        }
        return new Run(served / 20.0, minLimit, maxLimit, limitSum / limitSamples);
    }

    private static long exponential(SplittableRandom random, double meanNanos) {
        return Math.max(1L, (long) (-Math.log(1.0 - random.nextDouble()) * meanNanos));
    }

    /** A clock and a scheduler that move only when the event loop says so. Single-threaded. */
    private static final class VirtualTime implements Scheduler {
        private long now;
        private long sequence;
        private final PriorityQueue<Task> tasks = new PriorityQueue<>(
                Comparator.comparingLong((Task task) -> task.at).thenComparingLong(task -> task.sequence));

        long now() {
            return now;
        }

        long nextTaskAt() {
            Task first = tasks.peek();
            return first == null ? Long.MAX_VALUE : first.at;
        }

        void advanceTo(long at) {
            while (!tasks.isEmpty() && tasks.peek().at <= at) {
                Task task = tasks.poll();
                now = Math.max(now, task.at);
                if (!task.cancelled) {
                    task.runnable.run();
                }
            }
            now = Math.max(now, at);
        }

        @Override
        public Cancellable schedule(Runnable runnable, long delay, TimeUnit unit) {
            Task task = new Task(now + Math.max(0L, unit.toNanos(delay)), sequence++, runnable);
            tasks.add(task);
            return () -> task.cancelled = true;
        }

        private static final class Task {
            final long at;
            final long sequence;
            final Runnable runnable;
            boolean cancelled;

            Task(long at, long sequence, Runnable runnable) {
                this.at = at;
                this.sequence = sequence;
                this.runnable = runnable;
            }
        }
    }
}
