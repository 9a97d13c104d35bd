package dev.bulwark.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.bulwark.AdaptiveLimit;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.redis.internal.ClusterAdaptiveLimit;
import dev.bulwark.redis.testing.RedisFixture;
import dev.bulwark.redis.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 15 item 4 for the cluster: several instances (separate clients) of one Redis bulkhead with an adaptive
 * limit, driving a shared downstream whose latency grows with the fleet-wide number of calls in it (an
 * independent counter). The fleet's limit converges near the downstream's capacity, stays within the adaptive
 * range, works with a queue and a maximum wait, and decisions on one observed limit are a compare-and-set: exactly
 * one wins.
 */
class RedisAdaptiveLimitTest {

    /** See {@link RedisFixture#PATIENT}: these tests are about the limit, not about timeouts. */
    private static final Duration PATIENT = RedisFixture.PATIENT;

    @RegisterExtension
    static final RedisFixture redis = RedisFixture.perClass();

    /** What the downstream throws when it is overloaded; the limits below count it as a drop. */
    static final class Overloaded extends RuntimeException {
        Overloaded() {
            super("overloaded", null, false, false);
        }
    }

    /**
     * A resource shared by the whole fleet: {@code capacity} calls run at the base latency, and beyond it every
     * call slows down with the square of the overload (a thrashing database). Counts the calls in it itself,
     * independently of any bulkhead.
     */
    static final class Downstream {
        final int capacity;
        final long baseNanos;
        final AtomicInteger inFlight = new AtomicInteger();
        final AtomicInteger mostInFlight = new AtomicInteger();
        final AtomicLong served = new AtomicLong();

        Downstream(int capacity, Duration base) {
            this.capacity = capacity;
            this.baseNanos = base.toNanos();
        }

        String serve() {
            int now = inFlight.incrementAndGet();
            mostInFlight.accumulateAndGet(now, Math::max);
            try {
                double overload = Math.max(1.0, (double) now / capacity);
                long until = System.nanoTime() + (long) (baseNanos * overload * overload);
                // The work itself (not ordering): park until its time is up, however often parkNanos wakes early.
                for (long left = until - System.nanoTime(); left > 0; left = until - System.nanoTime()) {
                    LockSupport.parkNanos(left);
                }
                served.incrementAndGet();
                return "served";
            } finally {
                inFlight.decrementAndGet();
            }
        }
    }

    /** Threads calling through the fleet in a closed loop until stopped. */
    static final class Load implements AutoCloseable {
        private final List<Thread> threads = new ArrayList<>();
        private volatile boolean stopped;
        final AtomicLong refused = new AtomicLong();
        final AtomicLong failed = new AtomicLong();

        Load(List<RedisBulkhead> fleet, int threadsPerInstance, Runnable call) {
            for (RedisBulkhead instance : fleet) {
                for (int i = 0; i < threadsPerInstance; i++) {
                    Thread thread = new Thread(() -> {
                        while (!stopped) {
                            try {
                                instance.call(() -> {
                                    call.run();
                                    return null;
                                });
                            } catch (BulkheadRejectedException rejected) {
                                refused.incrementAndGet();
                            } catch (RuntimeException failure) {
                                failed.incrementAndGet();
                            }
                        }
                    }, "load-" + instance.name() + "-" + threads.size());
                    thread.setDaemon(true);
                    threads.add(thread);
                }
            }
            threads.forEach(Thread::start);
        }

        @Override
        public void close() throws InterruptedException {
            stopped = true;
            for (Thread thread : threads) {
                thread.join(TimeUnit.SECONDS.toMillis(30));
            }
        }
    }

    private static List<RedisBulkhead> fleet(TestInfo test, int instances, int startLimit, AdaptiveLimit limit) {
        List<RedisBulkhead> fleet = new ArrayList<>();
        for (int i = 0; i < instances; i++) {
            fleet.add(redis.track(RedisBulkhead.builder(redis.newClient(), test.getDisplayName())
                    .maxConcurrency(startLimit).maxQueue(100).maxWait(Duration.ofSeconds(20)).commandTimeout(PATIENT)
                    .adaptive(limit).build()));
        }
        return fleet;
    }

    /** The limit stored in Redis: the one every instance enforces. */
    /** The key of the test's bulkhead's configuration hash in Redis. */
    private static String configKey(TestInfo test) {
        return "bulwark:{" + test.getDisplayName() + "}:config";
    }

    private static int limitOnServer(TestInfo test) {
        String value = redis.inspect().hget(configKey(test), "maxConcurrency");
        return Integer.parseInt(value);
    }

    /**
     * Waits until the fleet's limit on the server lies within {@code [low, high]}, and again 2 s later, then reads it
     * as {@link #observeLimit} does: the readings, sorted.
     */
    private static List<Integer> settledLimits(TestInfo test, int low, int high) {
        await().atMost(Duration.ofSeconds(60)).untilAsserted(
                () -> assertThat(limitOnServer(test)).isBetween(low, high));
        // A limit that passes through the band on its way up (the gradient's slow start, say) has not settled
        // there: look again once it had time to overshoot and come back (CI once sampled 8 to 18 mid-ramp).
        await().pollDelay(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(60)).untilAsserted(
                () -> assertThat(limitOnServer(test)).isBetween(low, high));
        List<Integer> sorted = new ArrayList<>(observeLimit(test, 60));
        Collections.sort(sorted);
        return sorted;
    }

    /** Reads the limit in Redis {@code count} times, at least 50 ms apart. */
    private static List<Integer> observeLimit(TestInfo test, int count) {
        List<Integer> seen = Collections.synchronizedList(new ArrayList<>());
        await().pollInterval(Duration.ofMillis(50)).atMost(Duration.ofSeconds(60)).until(() -> {
            seen.add(limitOnServer(test));
            return seen.size() >= count;
        });
        return seen;
    }

    private static long total(List<RedisBulkhead> fleet, java.util.function.ToLongFunction<ClusterAdaptiveLimit> f) {
        return fleet.stream().mapToLong(instance -> f.applyAsLong(instance.engine.adaptiveLimit())).sum();
    }

    @Test
    void aimdWithALatencyThresholdConvergesNearTheSharedCapacityAcrossTheFleet(TestInfo test) throws Exception {
        // Capacity 8 at 20 ms: 9 in flight take 25 ms, 10 take 31 ms, above the 30 ms threshold. A fleet limit of 9
        // or 10 is where AIMD settles (a cut from 10 by 0.9 lands on 9, which grows back to 10).
        Downstream downstream = new Downstream(8, Duration.ofMillis(20));
        AdaptiveLimit aimd = AdaptiveLimit.aimd().minLimit(1).maxLimit(40).windowSamples(20)
                .latencyThreshold(Duration.ofMillis(30)).build();
        List<RedisBulkhead> fleet = fleet(test, 3, 2, aimd);

        try (Load load = new Load(fleet, 6, downstream::serve)) {
            List<Integer> sorted = settledLimits(test, 8, 11);
            assertThat(sorted).allSatisfy(limit -> assertThat(limit).isBetween(1, 40));
            assertThat(sorted.get(sorted.size() / 2)).as("median fleet limit of %s", sorted).isBetween(6, 12);
            // Without an adaptive limit 18 callers would have grown nothing; with one that ignores latency the
            // limit would have run to 18 (all callers): it stayed near the capacity instead.
            assertThat(sorted.get(sorted.size() - 1)).as("highest fleet limit of %s", sorted).isLessThanOrEqualTo(16);
            assertThat(load.failed).hasValue(0);
        }
        // Every instance decided, and some decisions lost to another instance's change of the same limit or won.
        assertThat(total(fleet, ClusterAdaptiveLimit::decisionsWon)).isGreaterThanOrEqualTo(7);
        for (RedisBulkhead instance : fleet) {
            assertThat(instance.engine.adaptiveLimit().decisionsSent()).isPositive();
        }
        await().atMost(Duration.ofSeconds(10)).untilAsserted(
                () -> assertThat(redis.holdersOnServer(test.getDisplayName())).isZero());
    }

    @Test
    void selfTuningNeedsNoSettingAndOneDeciderAtATimeTakesTheFleetNearTheCapacity(TestInfo test) throws Exception {
        // No latency threshold, no knowledge of the capacity (8 at 20 ms): the self-tuning limit finds it. Its
        // pinned measurements and probes move the whole fleet's limit, so one instance decides at a time.
        Downstream downstream = new Downstream(8, Duration.ofMillis(20));
        List<RedisBulkhead> fleet = fleet(test, 3, 10, AdaptiveLimit.selfTuning().maxLimit(40).build());

        try (Load load = new Load(fleet, 6, downstream::serve)) {
            List<Integer> sorted = settledLimits(test, 7, 12);
            assertThat(sorted).allSatisfy(limit -> assertThat(limit).isBetween(1, 40));
            assertThat(sorted.get(sorted.size() / 2)).as("median fleet limit of %s", sorted).isBetween(6, 12);
            assertThat(sorted.get(sorted.size() - 1)).as("highest fleet limit of %s", sorted).isLessThanOrEqualTo(16);
            assertThat(load.failed).hasValue(0);
        }
        // The first decision claimed the limit: every decision applied since came from that one instance.
        assertThat(fleet.stream().filter(instance -> instance.engine.adaptiveLimit().decisionsWon() > 0))
                .hasSize(1);
        assertThat(total(fleet, ClusterAdaptiveLimit::decisionsLost)).isPositive();
    }

    /** A decider that dies (here: stops seeing calls, so it decides no more and renews nothing) keeps its claim. */
    @Test
    void whenTheSelfTuningDeciderStopsAnotherInstanceTakesOverOnceItsClaimRunsOut(TestInfo test) throws Exception {
        Downstream downstream = new Downstream(8, Duration.ofMillis(20));
        List<RedisBulkhead> fleet = fleet(test, 2, 10, AdaptiveLimit.selfTuning().maxLimit(40).build());
        List<ClusterAdaptiveLimit> limits = List.of(fleet.get(0).engine.adaptiveLimit(),
                fleet.get(1).engine.adaptiveLimit());
        List<Load> loads = List.of(new Load(List.of(fleet.get(0)), 6, downstream::serve),
                new Load(List.of(fleet.get(1)), 6, downstream::serve));
        try {
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> limits.get(0).decisionsWon() + limits.get(1).decisionsWon() > 0);
            int decider = limits.get(0).decisionsWon() > 0 ? 0 : 1;
            ClusterAdaptiveLimit successor = limits.get(1 - decider);
            assertThat(successor.decisionsWon()).as("one decider at a time").isZero();

            loads.get(decider).close();
            long lostBefore = successor.decisionsLost();

            // The successor's decisions lose while the claim runs (30 s from the decider's last applied one), then
            // one wins: the limit never stays without a decider for longer than a claim.
            await().atMost(Duration.ofSeconds(60)).until(() -> successor.decisionsLost() > lostBefore);
            assertThat(successor.decisionsWon()).as("the claim still runs").isZero();
            // Rather than wait 30 s of real time, the claim is made to have run out as Redis's clock would make it.
            redis.inspect().hset(configKey(test), "deciderUntil", "0");
            await().atMost(Duration.ofSeconds(60)).until(() -> successor.decisionsWon() > 0);
        } finally {
            for (Load load : loads) {
                load.close();
            }
        }
    }

    @Test
    void aSelfTuningDeciderThatClosesGivesItsClaimBackAtOnce(TestInfo test) throws Exception {
        List<RedisBulkhead> fleet = fleet(test, 2, 10, AdaptiveLimit.selfTuning().maxLimit(40).build());
        ClusterAdaptiveLimit first = fleet.get(0).engine.adaptiveLimit();
        ClusterAdaptiveLimit second = fleet.get(1).engine.adaptiveLimit();

        assertThat(raiseByOne(first, test)).as("nobody holds the claim: the first decision takes it").isTrue();
        assertThat(raiseByOne(second, test)).as("the first instance's claim runs for 30 s").isFalse();
        fleet.get(0).close();

        assertThat(raiseByOne(second, test)).as("closing gave the claim back").isTrue();
        assertThat(raiseByOne(second, test)).as("and the second instance now holds it").isTrue();
    }

    @Test
    void aClosingDeciderGivesItsClaimBackEvenAfterTheLimitMovedWithoutIt(TestInfo test) throws Exception {
        List<RedisBulkhead> fleet = fleet(test, 2, 10, AdaptiveLimit.selfTuning().maxLimit(40).build());
        ClusterAdaptiveLimit first = fleet.get(0).engine.adaptiveLimit();
        ClusterAdaptiveLimit second = fleet.get(1).engine.adaptiveLimit();
        assertThat(raiseByOne(first, test)).as("the first decision takes the claim").isTrue();
        // Changed by hand through the other instance: the first one has not seen this limit when it closes.
        fleet.get(1).changeMaxConcurrency(limitOnServer(test) + 5);

        fleet.get(0).close();

        assertThat(raiseByOne(second, test)).as("the claim was given back, not left to run out").isTrue();
    }

    /** Proposes the limit on the server plus one, once no other write of this instance is in flight. */
    private static boolean raiseByOne(ClusterAdaptiveLimit limit, TestInfo test) throws Exception {
        AtomicReference<CompletableFuture<Boolean>> sent = new AtomicReference<>();
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            int observed = limitOnServer(test);
            sent.set(limit.propose(observed, observed + 1));
            return sent.get() != null;
        });
        return sent.get().get(10, TimeUnit.SECONDS);
    }

    @Test
    void theGradientNeedsNoThresholdEitherAndEveryInstanceMayDecide(TestInfo test) throws Exception {
        Downstream downstream = new Downstream(8, Duration.ofMillis(20));
        List<RedisBulkhead> fleet = fleet(test, 3, 4, AdaptiveLimit.gradient().minLimit(1).maxLimit(40).build());

        try (Load load = new Load(fleet, 6, downstream::serve)) {
            List<Integer> sorted = settledLimits(test, 7, 12);
            assertThat(sorted.get(sorted.size() / 2)).as("median fleet limit of %s", sorted).isBetween(6, 13);
            assertThat(sorted.get(sorted.size() - 1)).as("highest fleet limit of %s", sorted)
                    .isLessThanOrEqualTo(24); // slow start may overshoot once
            assertThat(load.failed).hasValue(0);
        }
        assertThat(fleet.stream().filter(instance -> instance.engine.adaptiveLimit().decisionsWon() > 0).count())
                .isGreaterThanOrEqualTo(2);
    }

    @Test
    void theFleetLimitNeverLeavesTheAdaptiveRangeAndTheFleetNeverExceedsIt(TestInfo test) throws Exception {
        // A downstream that is fast at any concurrency: AIMD grows the limit until its maximum, 6, and no further.
        Downstream downstream = new Downstream(1_000, Duration.ofMillis(5));
        AdaptiveLimit aimd = AdaptiveLimit.aimd().minLimit(2).maxLimit(6).windowSamples(10)
                .latencyThreshold(Duration.ofSeconds(1)).build();
        List<RedisBulkhead> fleet = fleet(test, 3, 2, aimd);

        try (Load load = new Load(fleet, 4, downstream::serve)) {
            await().atMost(Duration.ofSeconds(60)).until(() -> limitOnServer(test) == 6);
            List<Integer> limits = observeLimit(test, 20);
            assertThat(limits).containsOnly(6);
            assertThat(load.failed).hasValue(0);
        }
        // The independent count: 12 callers, yet never more than the largest limit in the downstream at once.
        assertThat(downstream.mostInFlight.get()).isBetween(2, 6);
        for (RedisBulkhead instance : fleet) {
            assertThat(instance.maxConcurrency()).isEqualTo(6);
        }
    }

    @Test
    void dropsCutTheFleetLimitToItsMinimumAndNoFurther(TestInfo test) throws Exception {
        AdaptiveLimit aimd = AdaptiveLimit.aimd().minLimit(3).maxLimit(40).windowSamples(5)
                .dropWhen(Overloaded.class::isInstance).build();
        List<RedisBulkhead> fleet = fleet(test, 2, 30, aimd);
        Downstream downstream = new Downstream(1_000, Duration.ofMillis(2));

        try (Load load = new Load(fleet, 4, () -> {
            downstream.serve();
            throw new Overloaded();
        })) {
            await().atMost(Duration.ofSeconds(60)).until(() -> limitOnServer(test) == 3);
            assertThat(observeLimit(test, 20)).containsOnly(3);
            assertThat(load.failed.get()).isPositive(); // the operation's own exception reached the callers
        }
        assertThat(total(fleet, ClusterAdaptiveLimit::decisionsWon)).isGreaterThanOrEqualTo(1);
    }

    @Test
    void twoInstancesDecidingOnTheSameObservedLimitExactlyOneWins(TestInfo test) throws Exception {
        AdaptiveLimit aimd = AdaptiveLimit.aimd().minLimit(1).maxLimit(100).build();
        List<RedisBulkhead> fleet = fleet(test, 2, 50, aimd);
        ClusterAdaptiveLimit first = fleet.get(0).engine.adaptiveLimit();
        ClusterAdaptiveLimit second = fleet.get(1).engine.adaptiveLimit();
        CyclicBarrier bothDecided = new CyclicBarrier(2);
        // Two threads of their own: the common pool may have a single worker on a small machine, and both
        // deciders must be at the barrier at once.
        ExecutorService deciders = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 40; round++) {
                fleet.forEach(RedisBulkhead::queuedCount); // both instances learn the current limit from a reply
                int observed = first.maxConcurrency();
                assertThat(second.maxConcurrency()).isEqualTo(observed);
                int up = observed + 1 + round % 3;
                int down = observed - 1 - round % 2;
                // Forced interleaving: both decisions rest on `observed`, and neither is sent before both were made.
                CompletableFuture<CompletableFuture<Boolean>> raise = CompletableFuture.supplyAsync(() -> {
                    arrive(bothDecided);
                    return first.propose(observed, up);
                }, deciders);
                CompletableFuture<Boolean> cut = CompletableFuture.supplyAsync(() -> {
                    arrive(bothDecided);
                    return second.propose(observed, down);
                }, deciders).thenCompose(reply -> reply);
                boolean raised = raise.thenCompose(reply -> reply).get(10, TimeUnit.SECONDS);
                boolean lowered = cut.get(10, TimeUnit.SECONDS);

                assertThat(raised ^ lowered).as("exactly one of the two decisions on %d wins", observed).isTrue();
                int winner = raised ? up : down;
                assertThat(limitOnServer(test)).isEqualTo(winner);
                // Each reply carried the limit that won: the loser starts its next window from it.
                assertThat(first.maxConcurrency()).isEqualTo(winner);
                assertThat(second.maxConcurrency()).isEqualTo(winner);
                if (winner < 20 || winner > 80) {
                    fleet.get(0).changeMaxConcurrency(50);
                }
            }
        } finally {
            deciders.shutdownNow();
        }
        assertThat(first.decisionsWon() + second.decisionsWon()).isEqualTo(40);
        assertThat(first.decisionsLost() + second.decisionsLost()).isEqualTo(40);
    }

    @Test
    void aDecisionOnALimitChangedByHandMeanwhileLoses(TestInfo test) throws Exception {
        List<RedisBulkhead> fleet = fleet(test, 1, 10, AdaptiveLimit.aimd().minLimit(1).maxLimit(100).build());
        ClusterAdaptiveLimit adaptive = fleet.get(0).engine.adaptiveLimit();
        fleet.get(0).changeMaxConcurrency(30);

        assertThat(adaptive.propose(10, 11).get(10, TimeUnit.SECONDS)).isFalse();
        assertThat(limitOnServer(test)).isEqualTo(30);
        assertThat(adaptive.propose(30, 29).get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(limitOnServer(test)).isEqualTo(29);
        assertThat(fleet.get(0).maxConcurrency()).isEqualTo(29);
    }

    @Test
    void permitsClosedWithAnOutcomeAndAsyncCallsAreSampledToo(TestInfo test) throws Exception {
        AdaptiveLimit aimd = AdaptiveLimit.aimd().minLimit(2).maxLimit(40).windowSamples(1)
                .dropWhen(Overloaded.class::isInstance).build();
        List<RedisBulkhead> fleet = fleet(test, 1, 20, aimd);
        RedisBulkhead bulkhead = fleet.get(0);

        // One write in flight at a time: keep dropping until the cuts have reached the minimum.
        await().pollInterval(Duration.ofMillis(10)).atMost(Duration.ofSeconds(30)).until(() -> {
            bulkhead.acquire().close(dev.bulwark.Permit.Outcome.DROPPED);
            return limitOnServer(test) == 2;
        });
        bulkhead.changeMaxConcurrency(20);
        await().pollInterval(Duration.ofMillis(10)).atMost(Duration.ofSeconds(30)).until(() -> {
            Throwable failure = bulkhead.callAsync(() -> CompletableFuture.<String>failedFuture(new Overloaded()))
                    .handle((value, thrown) -> thrown).get(10, TimeUnit.SECONDS);
            assertThat(failure).isInstanceOf(Overloaded.class);
            return limitOnServer(test) == 2;
        });
        // An ignored failure (not a drop) and an ignored outcome move nothing.
        bulkhead.changeMaxConcurrency(20);
        long sent = bulkhead.engine.adaptiveLimit().decisionsSent();
        for (int i = 0; i < 20; i++) {
            bulkhead.acquire().close(dev.bulwark.Permit.Outcome.IGNORED);
            assertThatThrownBy(() -> bulkhead.call(() -> {
                throw new IllegalStateException("not about capacity");
            })).isInstanceOf(IllegalStateException.class);
        }
        assertThat(bulkhead.engine.adaptiveLimit().decisionsSent()).isEqualTo(sent);
        assertThat(limitOnServer(test)).isEqualTo(20);
    }

    @Test
    void callsThatRunWithoutAPermitAreNotSampledAndNothingIsWrittenWhileRedisIsDown() throws Exception {
        try (RedisFixture own = new RedisFixture(RedisServer.start())) {
            RedisBulkhead bulkhead = own.track(RedisBulkhead.builder(own.newClient(), "down")
                    .maxConcurrency(10).commandTimeout(Duration.ofMillis(500)).failureMode(FailureMode.FAIL_OPEN)
                    .adaptive(AdaptiveLimit.aimd().minLimit(1).maxLimit(20).windowSamples(1)
                            .dropWhen(Overloaded.class::isInstance).build())
                    .build());
            ClusterAdaptiveLimit adaptive = bulkhead.engine.adaptiveLimit();
            own.server().stop();

            for (int i = 0; i < 20; i++) {
                assertThatThrownBy(() -> bulkhead.call(() -> {
                    throw new Overloaded();
                })).isInstanceOf(Overloaded.class);
            }
            // Twenty drops with one-sample windows would have been twenty cuts: none was even sent.
            assertThat(adaptive.decisionsSent()).isZero();
            assertThat(bulkhead.maxConcurrency()).isEqualTo(10);
        }
    }

    @Test
    void theStartingLimitMustLieWithinTheAdaptiveRange() {
        RedisBulkhead.Builder builder = RedisBulkhead.builder(redis.newClient(), "out-of-range").maxConcurrency(50)
                .adaptive(AdaptiveLimit.aimd().minLimit(1).maxLimit(20).build());
        assertThatThrownBy(builder::build).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxConcurrency").hasMessageContaining("[1, 20]");
        assertThatThrownBy(() -> RedisBulkhead.builder(redis.newClient(), "null-limit").adaptive(null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("limit");
    }

    private static void arrive(CyclicBarrier barrier) {
        try {
            barrier.await(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
