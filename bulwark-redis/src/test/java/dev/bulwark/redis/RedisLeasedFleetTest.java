package dev.bulwark.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bulwark.redis.testing.CallLog;
import dev.bulwark.redis.testing.FailoverReport;
import dev.bulwark.redis.testing.Fleet;
import dev.bulwark.redis.testing.FleetWorker;
import dev.bulwark.redis.testing.RedisClusterSetup;
import dev.bulwark.redis.testing.RedisFixture;
import dev.bulwark.redis.testing.RedisSentinelSetup;
import dev.bulwark.redis.testing.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The leased mode with real processes (issue 43, item 3): a fleet of {@link FleetWorker} JVMs, eight threads each,
 * calls one leased bulkhead whose limit the fleet's demand exceeds. The calls' own logs (see {@link CallLog}) are
 * the in-flight count kept outside the bulkhead; a thread of the test JVM also samples the blocks recorded in Redis.
 *
 * <p>By default a CI-sized fleet: 4 JVMs × 8 threads, 3 s measured. With {@code -Dbulwark.leased.fleet.long=true}:
 * 16 JVMs × 8 threads, 20 s measured. With {@code -Dbulwark.leased.failover=true}, also a failover under load on
 * the Sentinel and Redis Cluster deployments the exact mode's {@link RedisSentinelFailoverTest} and
 * {@link RedisClusterFailoverTest} use, with the same fleet and settings but the leased mode.
 */
class RedisLeasedFleetTest {

    static final int LIMIT = 16;
    static final int THREADS = 8;
    /** The renewal period; {@code -Dbulwark.leased.fleet.periodMillis} sets another. */
    static final long PERIOD_MILLIS = Long.getLong("bulwark.leased.fleet.periodMillis", 200);
    /** After the fleet started: the blocks settle within a few periods; measured from then on. */
    static final long SETTLE_MILLIS = 1_500;
    /** The failover cases' renewal period: a lease of 3 s in Redis, as the exact mode's failover tests lease. */
    static final long FAILOVER_PERIOD_MILLIS = 1_000;

    @Test
    void aLeasedFleetOverItsLimitNeverRunsMoreThanTheLimitAndKeepsItBusy() throws Exception {
        boolean longRun = Boolean.getBoolean("bulwark.leased.fleet.long");
        int jvms = longRun ? 16 : 4;
        long measureMillis = longRun ? 20_000 : 3_000;
        String name = "leased-fleet";
        String hash = "bulwark:{" + name + "}:leased";
        try (RedisFixture redis = new RedisFixture(RedisServer.start())) {
            // No maximum wait, and a queue with room for every thread: each JVM's demand is always 8.
            List<String> options = List.of("mode=standalone", "target=" + redis.server().uri(), "name=" + name,
                    "threads=" + THREADS, "limit=" + LIMIT, "queue=" + THREADS, "holdMicros=2000",
                    "leasedMillis=" + PERIOD_MILLIS, "commandTimeoutMillis=2000",
                    "maxMillis=" + (SETTLE_MILLIS + measureMillis) * 4);
            AtomicBoolean sampling = new AtomicBoolean(true);
            AtomicInteger mostRecorded = new AtomicInteger();
            AtomicInteger samples = new AtomicInteger();
            Thread sampler = new Thread(() -> {
                try (StatefulRedisConnection<String, String> connection = redis.newClient().connect()) {
                    RedisCommands<String, String> inspector = connection.sync();
                    while (sampling.get()) {
                        mostRecorded.accumulateAndGet(recordedSum(inspector.hgetall(hash)), Math::max);
                        samples.incrementAndGet();
                        LockSupport.parkNanos(2_000_000);
                    }
                }
            }, "recorded-blocks-sampler");
            List<Fleet.Done> tallies;
            CallLog log;
            long from;
            long to;
            try (Fleet fleet = Fleet.start(jvms, options)) {
                sampler.start();
                from = FleetWorker.nowMicros() + SETTLE_MILLIS * 1_000;
                to = from + measureMillis * 1_000;
                fleet.awaitEveryWorkerStartedAfter(to, Duration.ofMillis((SETTLE_MILLIS + measureMillis) * 3));
                tallies = fleet.stop(Duration.ofSeconds(120));
                log = fleet.log();
            } finally {
                sampling.set(false);
                sampler.join(10_000);
            }
            CallLog.Excess excess = log.excess(LIMIT);
            double utilization = (double) log.busyMicros(from, to) / (LIMIT * (to - from));
            long ran = log.count("OK");
            System.out.printf("Leased fleet %d JVMs x %d threads, limit %d, period %d ms: %d calls, %d ran, %d "
                            + "refused; most in flight %d (%.1f ms above the limit in %d episode(s)); utilization "
                            + "%.1f%% over %d s; most recorded %d (%d samples)%n", jvms, THREADS, LIMIT, PERIOD_MILLIS,
                    log.calls().size(), ran, log.calls().size() - ran, excess.maxInFlight(),
                    excess.microsAboveLimit() / 1000.0, excess.episodes(), utilization * 100, measureMillis / 1000,
                    mostRecorded.get(), samples.get());

            assertThat(excess.maxInFlight()).as("operations running at once, fleet-wide").isLessThanOrEqualTo(LIMIT);
            assertThat(excess.maxInFlight()).as("the fleet used its whole limit").isEqualTo(LIMIT);
            assertThat(mostRecorded.get()).as("blocks recorded in Redis, summed").isLessThanOrEqualTo(LIMIT);
            assertThat(samples.get()).as("the sampler ran").isPositive();
            // Each JVM's demand (8) is above its share: the blocks stay busy but for the hand-offs between the
            // threads of a JVM, which a loaded 2-core machine slows down.
            assertThat(utilization).as("busy slots over the limit").isGreaterThan(0.75);
            assertThat(log.eachCallOnceWithoutGaps()).as("every call logged exactly once").isTrue();
            long attempts = 0;
            for (Fleet.Done tally : tallies) {
                assertThat(tally.completed() + tally.refused()).as("tally " + tally).isEqualTo(tally.attempts());
                assertThat(tally.errors()).as("errors, " + tally).isZero();
                assertThat(tally.refused()).as("refusals (the queue had room, no maximum wait), " + tally).isZero();
                assertThat(tally.admitted()).as("admissions, " + tally).isEqualTo(tally.completed());
                assertThat(tally.released()).as("releases, " + tally).isEqualTo(tally.completed());
                attempts += tally.attempts();
            }
            assertThat(log.calls()).hasSize((int) attempts);
        }
    }

    /**
     * Left out of the default build (about 35 s on a loaded 2-core machine); runs with
     * {@code -Dbulwark.leased.failover=true}.
     */
    @Test
    @EnabledIfSystemProperty(named = "bulwark.leased.failover", matches = "true")
    void aLeasedFleetSurvivesTheKillOfTheSentinelMasterWithinTheMeasuredBounds() throws Exception {
        String name = "leased-sentinel-failover";
        int limit = RedisSentinelFailoverTest.LIMIT;
        try (RedisSentinelSetup redis = RedisSentinelSetup.start(1000)) {
            FailoverReport report;
            try (Fleet fleet = Fleet.start(3, failoverWorkerOptions("sentinel", redis.workerTarget(), name, limit))) {
                report = FailoverReport.run(fleet, limit, () -> {
                    redis.master().kill();
                    await().atMost(Duration.ofSeconds(30))
                            .until(() -> redis.masterPortPerSentinel() == redis.replica().port());
                });
            }
            report.print("Leased, Sentinel");
            assertWithinTheMeasuredBounds(report);

            RedisClient client = RedisClient.create(redis.replica().uri());
            try (StatefulRedisConnection<String, String> newMaster = client.connect()) {
                assertThat(recordedSum(newMaster.sync().hgetall("bulwark:{" + name + "}:leased")))
                        .as("blocks recorded on the new master").isLessThanOrEqualTo(limit);
            } finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }

    /**
     * The same fleet and failover on the Redis Cluster deployment of the exact mode's
     * {@link RedisClusterFailoverTest} (three masters with a replica each, a node timeout of 1 s): the master holding
     * the bulkhead's hash slot is killed with SIGKILL and its replica takes the slot over. The workers' cluster
     * clients refresh their topology as {@code RedisBulkhead.clusterClientOptions()} sets it up. Left out of the
     * default build with the Sentinel case; runs with {@code -Dbulwark.leased.failover=true}.
     */
    @Test
    @EnabledIfSystemProperty(named = "bulwark.leased.failover", matches = "true")
    void aLeasedFleetSurvivesTheKillOfTheClusterMasterHoldingItsSlotWithinTheMeasuredBounds() throws Exception {
        String name = "leased-cluster-failover";
        int limit = RedisClusterFailoverTest.LIMIT;
        try (RedisClusterSetup cluster = RedisClusterSetup.start(1000)) {
            int slot = cluster.slotOf("{" + name + "}");
            RedisServer master = cluster.masterOf(slot, cluster.nodes().get(0));
            RedisServer replica = cluster.replicaOf(master);
            FailoverReport report;
            try (Fleet fleet = Fleet.start(3, failoverWorkerOptions("cluster", cluster.workerTarget(), name, limit))) {
                report = FailoverReport.run(fleet, limit, () -> {
                    master.kill();
                    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                            .until(() -> cluster.isHealthyMaster(replica));
                });
            }
            report.print("Leased, Redis Cluster");
            assertWithinTheMeasuredBounds(report);
            assertThat(cluster.masterOf(slot, replica)).as("the replica took the slot over").isSameAs(replica);
            Map<String, String> fields = cluster.run(replica, c -> c.hgetall("bulwark:{" + name + "}:leased"));
            assertThat(recordedSum(fields)).as("blocks recorded on the new master").isLessThanOrEqualTo(limit);
        }
    }

    /** The failover fleet's workers: 4 threads each, 2 ms operations, leased with a renewal period of 1 s. */
    private static List<String> failoverWorkerOptions(String mode, String target, String name, int limit) {
        List<String> options = new ArrayList<>(List.of("mode=" + mode, "target=" + target, "name=" + name,
                "threads=4", "limit=" + limit, "queue=64", "holdMicros=2000", "maxMillis=120000",
                "leasedMillis=" + FAILOVER_PERIOD_MILLIS, "commandTimeoutMillis=500"));
        RedisSentinelFailoverTest.reconnectDelay().ifPresent(options::add);
        return options;
    }

    private static void assertWithinTheMeasuredBounds(FailoverReport report) {
        report.assertAccountedFor();
        assertThat(report.log().count("OK")).as("no call refused: the queues had room")
                .isEqualTo(report.log().calls().size());
        assertThat(Duration.ofNanos(report.longestWorkerPause().micros() * 1_000))
                .as("longest time a JVM admitted nothing after the kill")
                .isLessThan(RedisSentinelFailoverTest.RECOVERY_BOUND);
        // The blocks are replicated with the hash; any excess is made of renewals the old master did not
        // replicate, and ends when the instances renew on the new one, within one lease (three periods).
        assertThat(report.excess().microsAboveLimit()).as("µs above the limit")
                .isLessThanOrEqualTo(3 * FAILOVER_PERIOD_MILLIS * 1000);
    }

    /** The blocks in a leased bulkhead's hash, summed (its {@code b:<instance>} fields). */
    private static int recordedSum(Map<String, String> fields) {
        return fields.entrySet().stream().filter(field -> field.getKey().startsWith("b:"))
                .mapToInt(field -> Integer.parseInt(field.getValue())).sum();
    }
}
