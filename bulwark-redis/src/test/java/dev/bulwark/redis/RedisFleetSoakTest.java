package dev.bulwark.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bulwark.redis.testing.CallLog;
import dev.bulwark.redis.testing.Fleet;
import dev.bulwark.redis.testing.FleetWorker;
import dev.bulwark.redis.testing.RedisFixture;
import dev.bulwark.redis.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A fleet of JVMs on one bulkhead for a while, checked from outside: the calls' own logs (see {@link CallLog}) show
 * that no more than the limit ever ran at once, that every call happened exactly once and is in every tally, and
 * how far grants strayed from arrival order; Redis holds no permit and no waiter at the end.
 *
 * <p>By default a CI-sized fleet: 4 JVMs × 4 threads for 10 s. With {@code -Dbulwark.soak.long=true}: 16 JVMs ×
 * 8 threads for 60 s.
 */
class RedisFleetSoakTest {

    static final int LIMIT = 8;
    /**
     * How much earlier than an already granted call a later grant may have asked. Arrival is stamped by the
     * client before its script reaches Redis, and the grant when the client's thread wakes, so the tolerance is the
     * scheduling noise of a fleet of JVMs on a shared machine, not a property of the queue. The largest lag may
     * reach a poll interval plus a command timeout (1 s + 1 s by default): a waiter whose pub/sub wake-up was
     * missed learns of its grant at its next poll (the long soak measured 0.8 s on a loaded 2-core machine).
     */
    static final Duration FIFO_TOLERANCE_P99 = Duration.ofMillis(100);
    static final Duration FIFO_TOLERANCE_MAX = Duration.ofMillis(2_000);

    @Test
    void aFleetNeverExceedsTheLimitAccountsForEveryCallAndGrantsInArrivalOrder() throws Exception {
        boolean longSoak = Boolean.getBoolean("bulwark.soak.long");
        int jvms = longSoak ? 16 : 4;
        int threads = longSoak ? 8 : 4;
        long millis = longSoak ? 60_000 : 10_000;
        String name = "soak";
        try (RedisFixture redis = new RedisFixture(RedisServer.start())) {
            List<String> options = List.of("mode=standalone", "target=" + redis.server().uri(), "name=" + name,
                    "threads=" + threads, "limit=" + LIMIT, "queue=" + jvms * threads, "holdMicros=1000",
                    "maxMillis=" + (millis * 4));
            List<Fleet.Done> tallies;
            CallLog log;
            try (Fleet fleet = Fleet.start(jvms, options)) {
                long startedAt = FleetWorker.nowMicros();
                fleet.awaitEveryWorkerStartedAfter(startedAt + millis * 1_000, Duration.ofMillis(millis * 3));
                tallies = fleet.stop(Duration.ofSeconds(120));
                log = fleet.log();
            }
            CallLog.Excess excess = log.excess(LIMIT);
            long[] lags = log.fifoLags();
            long ran = log.count("OK");
            System.out.printf("Soak %d JVMs x %d threads, limit %d: %d calls, %d ran, %d refused (%s); most in "
                            + "flight %d; FIFO lag p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms%n",
                    jvms, threads, LIMIT, log.calls().size(), ran, log.calls().size() - ran,
                    log.count("UNAVAILABLE") + " UNAVAILABLE", excess.maxInFlight(),
                    CallLog.quantile(lags, 0.5) / 1000.0, CallLog.quantile(lags, 0.99) / 1000.0,
                    CallLog.quantile(lags, 0.999) / 1000.0, CallLog.quantile(lags, 1.0) / 1000.0);

            assertThat(excess.maxInFlight()).as("operations running at once, fleet-wide").isLessThanOrEqualTo(LIMIT);
            assertThat(excess.maxInFlight()).as("the fleet contended").isEqualTo(LIMIT);
            assertThat(log.eachCallOnceWithoutGaps()).as("every call logged exactly once").isTrue();
            long attempts = 0;
            for (Fleet.Done tally : tallies) {
                assertThat(tally.completed() + tally.refused()).as("tally " + tally).isEqualTo(tally.attempts());
                assertThat(tally.errors()).as("errors, " + tally).isZero();
                assertThat(tally.admitted()).as("admissions, " + tally).isEqualTo(tally.completed());
                assertThat(tally.released()).as("releases, " + tally).isEqualTo(tally.completed());
                attempts += tally.attempts();
            }
            assertThat(log.calls()).hasSize((int) attempts);
            assertThat(log.count("QUEUE_FULL")).as("the queue had room for every thread").isZero();
            assertThat(log.count("WAIT_TIMEOUT")).as("no maximum wait").isZero();
            assertThat(Duration.ofNanos(CallLog.quantile(lags, 0.99) * 1000)).as("p99 FIFO lag")
                    .isLessThanOrEqualTo(FIFO_TOLERANCE_P99);
            assertThat(Duration.ofNanos(CallLog.quantile(lags, 1.0) * 1000)).as("largest FIFO lag")
                    .isLessThanOrEqualTo(FIFO_TOLERANCE_MAX);
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                assertThat(redis.holdersOnServer(name)).isZero();
                assertThat(redis.queuedOnServer(name)).isZero();
            });
        }
    }
}
