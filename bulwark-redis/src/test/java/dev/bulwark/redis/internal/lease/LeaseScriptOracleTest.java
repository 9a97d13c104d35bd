package dev.bulwark.redis.internal.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.redis.testing.RedisFixture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The renewal script's division on a real Redis against its Java twin, {@link FairShares}, on small random fleets:
 * the grant, the record (two-phase shrink), the expired instances dropped, and the recorded blocks' sum; the whole
 * script against its in-memory twin, {@link LeaseTable}, on random sequences of renewals, with the running sums and
 * the sorted set by expiry checked after every step; and that a renewal between divisions reads no whole hash.
 */
class LeaseScriptOracleTest {

    @RegisterExtension
    static final RedisFixture redis = RedisFixture.perClass();

    @Test
    void theScriptGrantsAndRecordsWhatItsJavaTwinComputes() throws Exception {
        Random random = new Random(43);
        try (StatefulRedisConnection<String, String> connection = redis.newClient().connect()) {
            RedisCommands<String, String> inspect = redis.inspect();
            for (int round = 0; round < 100; round++) {
                String name = "oracle-" + round;
                LeaseStore store = new LeaseStore(connection.async(), name);
                long serverNow = Long.parseLong(inspect.time().get(0)) * 1000;
                int limit = 1 + random.nextInt(20);
                int others = random.nextInt(5);
                Map<String, Integer> liveDemands = new HashMap<>();
                int liveRecorded = 0;
                int free = limit;
                inspect.hset(store.key(), "limit", Integer.toString(limit));
                for (int i = 0; i < others; i++) {
                    String id = "i" + i;
                    int block = free == 0 ? 0 : random.nextInt(free + 1);
                    int demand = random.nextInt(10);
                    boolean expired = random.nextInt(5) == 0;
                    inspect.hset(store.key(), Map.of("b:" + id, Integer.toString(block), "d:" + id,
                            Integer.toString(demand), "e:" + id,
                            Long.toString(expired ? serverNow - 1000 : serverNow + 60_000)));
                    if (!expired) {
                        free -= block;
                        liveRecorded += block;
                        liveDemands.put(id, demand);
                    }
                }
                int demand = random.nextInt(12);
                int holding = random.nextInt(limit + 1);
                liveDemands.put("me", demand);

                // A hash without the running sums or the sorted set (as an earlier version wrote it): the renewal
                // divides from the whole hash and brings the sums and the set under their invariants.
                long[] reply = store.renew("me", demand / 2, demand - demand / 2, holding, 60_000, 20_000, 99, false,
                        TimeUnit.SECONDS.toNanos(5))
                        .get();

                int expectedGrant = FairShares.grant(FairShares.targets(limit, liveDemands).get("me"), limit,
                        liveRecorded);
                int expectedRecord = FairShares.record(expectedGrant, holding);
                String facts = "round " + round + ": limit " + limit + ", live demands " + liveDemands
                        + ", others recorded " + liveRecorded + ", holding " + holding;
                assertThat(reply[0]).as(facts).isEqualTo(expectedGrant);
                assertThat(reply[1]).as(facts).isEqualTo(limit);
                assertThat(reply[2]).as(facts).isEqualTo(liveDemands.size());
                assertThat(reply[3]).as(facts).isEqualTo(liveRecorded + expectedRecord);
                assertThat(inspect.hget(store.key(), "b:me")).as(facts).isEqualTo(Integer.toString(expectedRecord));
                assertThat(inspect.hkeys(store.key()).stream().filter(field -> field.startsWith("b:")))
                        .as(facts).hasSize(liveDemands.size());
                assertSumsAndSetHold(inspect, store, facts);
            }
        }
    }

    @Test
    void theInMemoryTableAnswersAndRecordsWhatTheScriptDoes() throws Exception {
        Random random = new Random(4302);
        try (StatefulRedisConnection<String, String> connection = redis.newClient().connect()) {
            for (int round = 0; round < 60; round++) {
                sequence(connection, random, "table-" + round, 7, 8, 10);
            }
        }
    }

    /**
     * Long random sequences on fleets of a few hundred: joins, renewals with the division recomputed (a period of 0)
     * or served from its cache (a period longer than the test), leaves, limit changes, and expired instances (seeded,
     * and renewed with a lease already over) dropped a few per renewal through the sorted set. After every step the
     * twin and the script answer alike, and the running sums equal the sums counted from the records, in both.
     */
    @Test
    void theTwinAndTheScriptAgreeAndTheRunningSumsStayExactOnFleetsOfHundreds() throws Exception {
        Random random = new Random(4303);
        try (StatefulRedisConnection<String, String> connection = redis.newClient().connect()) {
            for (int round = 0; round < 3; round++) {
                sequence(connection, random, "hundreds-" + round, 300, 400, 100);
            }
        }
    }

    /**
     * A renewal between two divisions reads no whole hash: 400 renewals within one period of a 500-instance fleet
     * make one {@code HGETALL} at most (the division's), counted by the server's {@code INFO commandstats}, which
     * counts the commands scripts call. The script before the running sums made one per renewal.
     */
    @Test
    void renewalsWithinAPeriodReadTheWholeHashAtMostOnce() throws Exception {
        Random random = new Random(4304);
        try (StatefulRedisConnection<String, String> connection = redis.newClient().connect()) {
            RedisCommands<String, String> inspect = redis.inspect();
            LeaseStore store = new LeaseStore(connection.async(), "one-division");
            int instances = 500;
            // Pipelined: one connection runs them in order.
            List<CompletableFuture<long[]>> replies = new ArrayList<>();
            for (int i = 0; i < instances; i++) {
                replies.add(store.renew("i" + i, 1, random.nextInt(4), 0, 600_000, 600_000, 2 * instances, false,
                        TimeUnit.SECONDS.toNanos(30)));
            }
            CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new)).get();
            inspect.configResetstat();
            replies.clear();
            for (int i = 0; i < 400; i++) {
                int demand = random.nextInt(6);
                replies.add(store.renew("i" + random.nextInt(instances), demand / 2, demand - demand / 2, 2, 600_000,
                        600_000, 2 * instances, false, TimeUnit.SECONDS.toNanos(30)));
            }
            CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new)).get();
            assertThat(commandCalls(inspect, "evalsha")).isEqualTo(400);
            assertThat(commandCalls(inspect, "hgetall")).isLessThanOrEqualTo(1);
            assertSumsAndSetHold(inspect, store, "after 400 renewals");
        }
    }

    /**
     * A record renewed without moving the sorted set (by an earlier version's script, during a rolling upgrade) and
     * left there with its old, past score is not taken for expired: the renewal finds it due by its score, reads its
     * {@code e:} field, and scores it anew instead of dropping a live instance's block.
     */
    @Test
    void aRecordWhoseScoreIsStaleButWhoseLeaseRunsIsKept() throws Exception {
        try (StatefulRedisConnection<String, String> connection = redis.newClient().connect()) {
            RedisCommands<String, String> inspect = redis.inspect();
            LeaseStore store = new LeaseStore(connection.async(), "stale-score");
            long timeout = TimeUnit.SECONDS.toNanos(5);
            store.renew("a", 2, 0, 0, 600_000, 600_000, 10, false, timeout).get();
            store.renew("b", 2, 0, 0, 600_000, 600_000, 10, false, timeout).get();
            long serverNow = Long.parseLong(inspect.time().get(0)) * 1000;
            // As an earlier version renews a: a new record and lease end in the hash, the set's score left behind.
            inspect.hset(store.key(), Map.of("b:a", "4", "e:a", Long.toString(serverNow + 600_000)));
            inspect.hset(store.key(), "blocks", Long.toString(4 + Long.parseLong(inspect.hget(store.key(), "b:b"))));
            inspect.zadd(store.expiriesKey(), serverNow - 1000, "a");

            long[] reply = store.renew("b", 2, 0, 0, 600_000, 600_000, 10, false, timeout).get();

            assertThat(inspect.hget(store.key(), "b:a")).isEqualTo("4");
            assertThat(reply[2]).isEqualTo(2);
            assertThat(inspect.zscore(store.expiriesKey(), "a")).isEqualTo((double) (serverNow + 600_000));
            assertSumsAndSetHold(inspect, store, "after the renewal");
        }
    }

    /**
     * One random sequence on the script and its twin from the same seeded state: {@code ids} instances may take
     * part, up to {@code seeded} of them written first (a quarter already expired), then {@code steps} steps.
     */
    private static void sequence(StatefulRedisConnection<String, String> connection, Random random, String name,
                                 int ids, int seeded, int steps) throws Exception {
        RedisCommands<String, String> inspect = redis.inspect();
        LeaseStore store = new LeaseStore(connection.async(), name);
        LeaseTable table = new LeaseTable();
        long serverNow = Long.parseLong(inspect.time().get(0)) * 1000;
        int limit = 1 + random.nextInt(4 * ids);
        if (random.nextBoolean()) {
            // Otherwise the first renewal stores its initial limit, in both.
            inspect.hset(store.key(), "limit", Integer.toString(limit));
            table.setLimit(limit);
        }
        int free = limit;
        for (int i = 0; i < Math.min(ids, random.nextInt(seeded + 1)); i++) {
            String id = "i" + i;
            int block = free == 0 ? 0 : random.nextInt(Math.min(free, 10) + 1);
            int demand = random.nextInt(10);
            // Distinct expiries, so that the sorted set's order is the same in Redis and in the twin.
            long expiry = random.nextInt(4) == 0 ? serverNow - 1_000_000 - 1000L * i : serverNow + 600_000 + i;
            inspect.hset(store.key(), Map.of("b:" + id, Integer.toString(block), "d:" + id,
                    Integer.toString(demand), "e:" + id, Long.toString(expiry), "x:" + id, "0"));
            inspect.zadd(store.expiriesKey(), expiry, id);
            table.put(id, block, demand, 0, expiry);
            free -= expiry > serverNow ? block : 0;
        }
        inspect.hset(store.key(), Map.of("live", Long.toString(table.live()), "blocks",
                Long.toString(table.recordedSum())));
        for (int step = 0; step < steps; step++) {
            String facts = name + ", step " + step;
            if (random.nextInt(20) == 0) {
                limit = 1 + random.nextInt(4 * ids);
                store.setLimit(limit, TimeUnit.SECONDS.toNanos(5)).get();
                table.setLimit(limit);
                facts += ", limit " + limit;
            }
            String id = "i" + random.nextInt(ids);
            int demand = random.nextInt(13);
            int executing = random.nextInt(demand + 1);
            int holding = random.nextInt(Math.max(1, Math.min(limit + 2, 12)));
            boolean leaving = random.nextInt(8) == 0;
            // A period of 0 makes the renewal divide anew; a longer one than the test serves the cached division.
            long period = random.nextInt(4) == 0 ? 0 : 600_000;
            // Now and then a lease already over, so that renewed instances expire too (distinct per step).
            long ttl = random.nextInt(6) == 0 ? -1000L * (step + 1) : 600_000 + step;
            long[] fromRedis = store.renew(id, executing, demand - executing, holding, ttl, period, limit, leaving,
                    TimeUnit.SECONDS.toNanos(5)).get();
            long[] fromTable = table.renew(id, demand, holding, ttl, period, limit, leaving, executing, serverNow);
            facts += ": " + id + " demand " + demand + ", holding " + holding + ", period " + period + ", ttl " + ttl
                    + (leaving ? ", leaving" : "");
            assertThat(fromTable).as(facts).containsExactly(fromRedis);
            assertThat(new long[] {table.live(), table.recordedSum()}).as(facts + "; the twin's running sums")
                    .containsExactly(table.recount());
            Map<String, String> hash = assertSumsAndSetHold(inspect, store, facts);
            for (int i = 0; i < ids; i++) {
                String block = hash.get("b:i" + i);
                assertThat(table.block("i" + i)).as(facts + "; block of i" + i)
                        .isEqualTo(block == null ? -1 : Integer.parseInt(block));
            }
        }
    }

    /**
     * The running sums' invariants in Redis: {@code live} the number of records, {@code blocks} their sum, the sorted
     * set exactly the ids with a record, each scored by its lease's end.
     */
    private static Map<String, String> assertSumsAndSetHold(RedisCommands<String, String> inspect, LeaseStore store,
                                                            String facts) {
        Map<String, String> hash = inspect.hgetall(store.key());
        Map<String, Double> expected = new HashMap<>();
        long sum = 0;
        for (Map.Entry<String, String> field : hash.entrySet()) {
            if (field.getKey().startsWith("b:")) {
                String id = field.getKey().substring(2);
                sum += Long.parseLong(field.getValue());
                expected.put(id, Double.parseDouble(hash.get("e:" + id)));
            }
        }
        assertThat(hash.get("live")).as(facts + "; live").isEqualTo(Integer.toString(expected.size()));
        assertThat(hash.get("blocks")).as(facts + "; blocks").isEqualTo(Long.toString(sum));
        Map<String, Double> set = new HashMap<>();
        inspect.zrangeWithScores(store.expiriesKey(), 0, -1).forEach(member -> set.put(member.getValue(),
                member.getScore()));
        assertThat(set).as(facts + "; the sorted set by expiry").isEqualTo(expected);
        return hash;
    }

    private static long commandCalls(RedisCommands<String, String> inspect, String command) {
        for (String line : inspect.info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_" + command + ":")) {
                return Long.parseLong(line.replaceAll(".*?:calls=([0-9]+).*", "$1"));
            }
        }
        return 0;
    }

    @Test
    void aLevelGivesBackEveryShare() {
        Random random = new Random(4305);
        for (int round = 0; round < 20_000; round++) {
            int count = 1 + random.nextInt(12);
            int[] demands = new int[count];
            for (int i = 0; i < count; i++) {
                demands[i] = random.nextInt(random.nextBoolean() ? 5 : 40);
            }
            Arrays.sort(demands);
            int limit = random.nextInt(6 * count + 20);
            int[] shares = FairShares.shares(limit, demands, count);
            FairShares.Level level = FairShares.level(limit, demands, count);
            for (int i = 0; i < count; i++) {
                assertThat(FairShares.target(level, demands[i], i >= level.edge()))
                        .as("limit %d, demands %s, position %d, %s", limit, Arrays.toString(demands), i,
                                level)
                        .isEqualTo(shares[i]);
            }
        }
    }

    @Test
    void targetsAreMaxMinFairByDemandAndWorkConserving() {
        // Demand above the limit: the small demand is met, the rest is split evenly.
        assertThat(FairShares.targets(12, Map.of("a", 10, "b", 10, "c", 2))).containsEntry("a", 5)
                .containsEntry("b", 5).containsEntry("c", 2);
        // Demand below the limit: every demand met, the spare split as headroom, the whole limit handed out.
        assertThat(FairShares.targets(10, Map.of("a", 1, "b", 3))).containsEntry("a", 4).containsEntry("b", 6);
        // An idle instance's share flows to the one with demand.
        assertThat(FairShares.targets(10, Map.of("a", 0, "b", 30))).containsEntry("a", 0).containsEntry("b", 10);
    }
}
