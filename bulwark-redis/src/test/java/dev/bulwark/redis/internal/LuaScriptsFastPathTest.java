package dev.bulwark.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.bulwark.redis.testing.RedisFixture;
import dev.bulwark.redis.testing.RedisServer;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.ScriptOutputType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The fast paths at the top of {@link LuaScripts#ACQUIRE} and {@link LuaScripts#RELEASE} decide exactly as the
 * general path below them would: each script is run on hand-made states (live and expired holders, weighted ones,
 * waiters, carried releases of every kind, missing limits, a retried acquire) against the same script with its
 * fast path switched off, and the replies and the resulting keys must be the same. The states are random but
 * seeded, and the test asserts that both paths were taken often enough to mean something.
 */
class LuaScriptsFastPathTest {

    private static final int SCENARIOS = 400;
    private static final long PRIORITY_STEP = 1L << 48;

    private RedisFixture redis;
    private final BulkheadKeys keys = new BulkheadKeys("diff");

    @BeforeEach
    void startRedis() {
        redis = new RedisFixture(RedisServer.start());
    }

    @AfterEach
    void stopRedis() {
        redis.close();
    }

    /** The script with its fast path switched off; fails if the switch is no longer where this test expects. */
    private static String withoutFastPath(LuaScripts.Script script, String condition, String off) {
        assertThat(script.source()).as("the fast path's condition in %s", script.name()).contains(condition);
        return script.source().replace(condition, off);
    }

    /** One state of the keys, written anew before each of the two runs. */
    private record State(String limits, boolean configPresent, Map<String, Long> holders, long extra,
            Map<String, Long> queue, Map<String, Long> waiters) {

        void write(RedisFixture redis, String[] keys) {
            redis.inspect().flushall();
            holders.forEach((id, expiry) -> redis.inspect().zadd(keys[0], expiry, id));
            queue.forEach((id, score) -> redis.inspect().zadd(keys[1], score, id));
            waiters.forEach((id, expiry) -> redis.inspect().zadd(keys[2], expiry, id));
            if (configPresent) {
                String[] parts = limits.split(":");
                redis.inspect().hset(keys[3], Map.of("maxConcurrency", parts[0], "maxQueue", parts[1],
                        "maxWaitNanos", parts[2]));
            }
            redis.inspect().set(keys[4], "100");
            if (extra > 0) {
                redis.inspect().set(keys[5], Long.toString(extra));
            }
        }
    }

    private static String weighted(String id, int weight) {
        return weight > 1 ? id + "#" + weight : id;
    }

    private static State randomState(Random random, int limit) {
        long now = System.currentTimeMillis();
        Map<String, Long> holders = new LinkedHashMap<>();
        long extra = 0;
        int holderCount = random.nextInt(limit + 2);
        for (int i = 0; i < holderCount; i++) {
            int weight = random.nextInt(4) == 0 ? 2 + random.nextInt(2) : 1;
            boolean expired = random.nextInt(10) < 3;
            holders.put(weighted("h-" + i, weight), expired ? now - 1_000 : now + 600_000);
            extra += weight - 1;
        }
        Map<String, Long> queue = new LinkedHashMap<>();
        Map<String, Long> waiters = new LinkedHashMap<>();
        if (random.nextInt(10) < 3) {
            int waiterCount = 1 + random.nextInt(2);
            for (int i = 0; i < waiterCount; i++) {
                String id = weighted("q-" + i, 1 + random.nextInt(limit));
                queue.put(id, random.nextInt(3) * PRIORITY_STEP + 10 + i);
                waiters.put(id, random.nextInt(10) < 2 ? now - 1_000 : now + 600_000);
            }
        }
        int maxQueue = random.nextBoolean() ? 0 : 4;
        return new State(limit + ":" + maxQueue + ":0", random.nextInt(10) != 0, holders, extra, queue, waiters);
    }

    /** Replies and every key after a run; scores derived from the server's clock compared within a tolerance. */
    private record Outcome(List<Object> reply, Map<String, Double> holders, Map<String, Double> queue,
            Map<String, Double> waiters, String extra, String tickets, Map<String, String> config) {
    }

    private Outcome run(String source, State state, List<String> argv) {
        state.write(redis, keys.all());
        List<Object> reply = redis.inspect().eval(source, ScriptOutputType.MULTI, keys.all(),
                argv.toArray(String[]::new));
        return new Outcome(reply, scores(keys.all()[0]), scores(keys.all()[1]), scores(keys.all()[2]),
                redis.inspect().get(keys.all()[5]), redis.inspect().get(keys.all()[4]),
                redis.inspect().hgetall(keys.all()[3]));
    }

    private Map<String, Double> scores(String key) {
        Map<String, Double> scores = new LinkedHashMap<>();
        for (ScoredValue<String> member : redis.inspect().zrangeWithScores(key, 0, -1)) {
            scores.put(member.getValue(), member.getScore());
        }
        return scores;
    }

    private static void assertSame(Outcome fast, Outcome reference, String scenario) {
        assertThat(fast.reply()).as("reply, %s", scenario).isEqualTo(reference.reply());
        assertSameScores(fast.holders(), reference.holders(), "holders, " + scenario);
        assertThat(fast.queue()).as("queue, %s", scenario).isEqualTo(reference.queue());
        assertSameScores(fast.waiters(), reference.waiters(), "waiters, " + scenario);
        assertThat(fast.extra()).as("extra, %s", scenario).isEqualTo(reference.extra());
        assertThat(fast.tickets()).as("tickets, %s", scenario).isEqualTo(reference.tickets());
        assertThat(fast.config()).as("config, %s", scenario).isEqualTo(reference.config());
    }

    private static void assertSameScores(Map<String, Double> fast, Map<String, Double> reference, String what) {
        assertThat(fast.keySet()).as(what).containsExactlyInAnyOrderElementsOf(reference.keySet());
        // A lease expiry is the server's clock plus the lease: the two runs read the clock a few ms apart.
        fast.forEach((id, score) -> assertThat(score).as("%s: %s", what, id).isCloseTo(reference.get(id),
                within(2_000.0)));
    }

    private boolean ranAPurge() {
        return redis.inspect().info("commandstats").contains("cmdstat_zremrangebyscore:");
    }

    @Test
    void theAcquiresFastPathDecidesAsTheGeneralPathWould() {
        String reference = withoutFastPath(LuaScripts.ACQUIRE,
                "local fastTried = fastLimit and c[2] and c[3] and #ARGV <= 6", "local fastTried = false");
        Random random = new Random(17);
        int fast = 0;
        int full = 0;
        for (int n = 0; n < SCENARIOS; n++) {
            int limit = 1 + random.nextInt(4);
            State state = randomState(random, limit);
            List<String> holderIds = new ArrayList<>(state.holders().keySet());
            List<String> waiterIds = new ArrayList<>(state.queue().keySet());
            int weight = 1 + random.nextInt(Math.min(limit + 1, 3));
            String id = random.nextInt(10) == 0 && !holderIds.isEmpty()
                    ? holderIds.get(0) // a retried acquire whose first reply was lost
                    : weighted("new", weight);
            List<String> argv = new ArrayList<>(List.of(state.limits(), id, "60000",
                    random.nextBoolean() ? "1" : "0", Integer.toString(random.nextInt(3))));
            int carried = random.nextInt(6);
            if (carried == 1 && !holderIds.isEmpty()) {
                argv.add(holderIds.get(holderIds.size() - 1)); // live or expired
            } else if (carried == 2 && !waiterIds.isEmpty()) {
                argv.add(waiterIds.get(0));
            } else if (carried == 3) {
                argv.add("never-held");
            } else if (carried == 4 && holderIds.size() > 1) {
                argv.add(holderIds.get(1));
                argv.add(holderIds.get(holderIds.size() - 1));
            }
            String scenario = "scenario " + n + ": " + state + " argv " + argv;

            redis.inspect().configResetstat();
            Outcome withFastPath = run(LuaScripts.ACQUIRE.source(), state, argv);
            if (ranAPurge()) {
                full++;
            } else if (state.configPresent() && argv.size() <= 6) {
                // The fast path at the top: with the limits read and one release at most, no other path skips the
                // purge.
                fast++;
            }
            assertSame(withFastPath, run(reference, state, argv), scenario);
        }
        assertThat(fast).as("scenarios decided by the fast path at the top").isGreaterThan(SCENARIOS / 8);
        assertThat(full).as("scenarios decided by the full path").isGreaterThan(SCENARIOS / 5);
    }

    /**
     * The fast acquire tests the queue and {@code extra} with one {@code EXISTS}; when it counts one of them,
     * {@code GET extra} must tell which. Each state below makes it count exactly one, with or without a release
     * carried: a weighted holder and nobody queued (the fast path decides, having read extra), and a waiter with
     * no weighted holder (the full path decides). Both must decide as the script without its fast path.
     */
    @Test
    void oneExistsOfTheQueueAndExtraTellsWhichOfThemIsThere() {
        String reference = withoutFastPath(LuaScripts.ACQUIRE,
                "local fastTried = fastLimit and c[2] and c[3] and #ARGV <= 6", "local fastTried = false");
        long live = System.currentTimeMillis() + 600_000;
        State weightedHolder = new State("6:4:0", true, Map.of("h-0#3", live, "h-1", live), 2, Map.of(), Map.of());
        State waiter = new State("2:4:0", true, Map.of("h-0", live), 0, Map.of("q-0#2", 10L),
                Map.of("q-0#2", live));
        for (List<String> carried : List.of(List.<String>of(), List.of("h-1"), List.of("h-0#3"))) {
            List<String> argv = new ArrayList<>(List.of(weightedHolder.limits(), "new", "60000", "1", "0"));
            argv.addAll(carried);
            redis.inspect().configResetstat();
            Outcome fast = run(LuaScripts.ACQUIRE.source(), weightedHolder, argv);
            String stats = redis.inspect().info("commandstats");
            // One GET by the script; run() itself reads extra and tickets with GET afterwards.
            assertThat(stats).as("extra read, no purge, carrying %s", carried).contains("cmdstat_get:calls=3,")
                    .doesNotContain("cmdstat_zremrangebyscore:");
            assertThat(fast.reply().get(0)).as("admitted").isEqualTo(1L);
            assertSame(fast, run(reference, weightedHolder, argv), "weighted holder, carrying " + carried);
        }
        for (List<String> carried : List.of(List.<String>of(), List.of("h-0"))) {
            List<String> argv = new ArrayList<>(List.of(waiter.limits(), "new", "60000", "1", "0"));
            argv.addAll(carried);
            redis.inspect().configResetstat();
            Outcome full = run(LuaScripts.ACQUIRE.source(), waiter, argv);
            assertThat(redis.inspect().info("commandstats")).as("the full path, carrying %s", carried)
                    .contains("cmdstat_zremrangebyscore:");
            assertSame(full, run(reference, waiter, argv), "a waiter, carrying " + carried);
        }
    }

    @Test
    void theReleasesFastPathDecidesAsTheGeneralPathWould() {
        String reference = withoutFastPath(LuaScripts.RELEASE,
                "if #ARGV == 2 and redis.call('EXISTS', queue) == 0 then", "if false then");
        Random random = new Random(42);
        int fast = 0;
        for (int n = 0; n < SCENARIOS; n++) {
            State state = randomState(random, 1 + random.nextInt(4));
            List<String> candidates = new ArrayList<>(state.holders().keySet());
            candidates.addAll(state.queue().keySet());
            candidates.add("never-held");
            List<String> argv = new ArrayList<>(List.of(state.limits(),
                    candidates.get(random.nextInt(candidates.size()))));
            if (random.nextInt(5) == 0) {
                argv.add(candidates.get(random.nextInt(candidates.size())));
            }
            String scenario = "scenario " + n + ": " + state + " argv " + argv;

            Outcome withFastPath = run(LuaScripts.RELEASE.source(), state, argv);
            if (argv.size() == 2 && state.queue().isEmpty()) {
                fast++;
            }
            assertSame(withFastPath, run(reference, state, argv), scenario);
        }
        assertThat(fast).as("scenarios the fast path decided").isGreaterThan(SCENARIOS / 3);
    }
}
