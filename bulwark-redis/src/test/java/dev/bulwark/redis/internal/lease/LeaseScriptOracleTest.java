package dev.bulwark.redis.internal.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.redis.testing.RedisFixture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The renewal script's division on a real Redis against its Java twin, {@link FairShares}, on small random fleets:
 * the grant, the record (two-phase shrink), the expired instances dropped, and the recorded blocks' sum; and the
 * whole script against its in-memory twin, {@link LeaseTable}, on random sequences of renewals.
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

                long[] reply = store.renew("me", demand / 2, demand - demand / 2, holding, 60_000, 99, false,
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
            }
        }
    }

    @Test
    void theInMemoryTableAnswersAndRecordsWhatTheScriptDoes() throws Exception {
        Random random = new Random(4302);
        List<String> ids = List.of("i0", "i1", "i2", "i3", "i4", "me", "new");
        try (StatefulRedisConnection<String, String> connection = redis.newClient().connect()) {
            RedisCommands<String, String> inspect = redis.inspect();
            for (int round = 0; round < 60; round++) {
                String name = "table-" + round;
                LeaseStore store = new LeaseStore(connection.async(), name);
                LeaseTable table = new LeaseTable();
                long serverNow = Long.parseLong(inspect.time().get(0)) * 1000;
                int limit = 1 + random.nextInt(20);
                if (random.nextBoolean()) {
                    // Otherwise the first renewal stores its initial limit, in both.
                    inspect.hset(store.key(), "limit", Integer.toString(limit));
                    table.setLimit(limit);
                }
                int free = limit;
                int seeded = random.nextInt(6);
                for (int i = 0; i < seeded; i++) {
                    String id = ids.get(i);
                    int block = free == 0 ? 0 : random.nextInt(free + 1);
                    int demand = random.nextInt(10);
                    long expiry = random.nextInt(4) == 0 ? serverNow - 1000 : serverNow + 60_000;
                    inspect.hset(store.key(), Map.of("b:" + id, Integer.toString(block), "d:" + id,
                            Integer.toString(demand), "e:" + id, Long.toString(expiry), "x:" + id, "0"));
                    table.put(id, block, demand, 0, expiry);
                    free -= expiry > serverNow ? block : 0;
                }
                for (int step = 0; step < 8; step++) {
                    String id = ids.get(random.nextInt(ids.size()));
                    int demand = random.nextInt(13);
                    int executing = random.nextInt(demand + 1);
                    int holding = random.nextInt(limit + 2);
                    boolean leaving = random.nextInt(8) == 0;
                    long[] fromRedis = store.renew(id, executing, demand - executing, holding, 60_000, limit, leaving,
                            TimeUnit.SECONDS.toNanos(5)).get();
                    long[] fromTable = table.renew(id, demand, holding, 60_000, limit, leaving, executing, serverNow);
                    String facts = "round " + round + ", step " + step + ": " + id + " demand " + demand
                            + ", holding " + holding + (leaving ? ", leaving" : "");
                    assertThat(fromTable).as(facts).containsExactly(fromRedis);
                    Map<String, String> hash = inspect.hgetall(store.key());
                    for (String each : ids) {
                        String block = hash.get("b:" + each);
                        assertThat(table.block(each)).as(facts + "; block of " + each)
                                .isEqualTo(block == null ? -1 : Integer.parseInt(block));
                    }
                }
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
