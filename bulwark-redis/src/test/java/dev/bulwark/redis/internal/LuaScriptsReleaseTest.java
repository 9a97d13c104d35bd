package dev.bulwark.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.redis.testing.RedisFixture;
import dev.bulwark.redis.testing.RedisServer;
import io.lettuce.core.ScriptOutputType;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The release of several ids in one script ({@link LuaScripts#RELEASE}, and {@link LuaScripts#ACQUIRE} carrying
 * them), run directly against a real Redis with hand-made state: the holders leave in one {@code ZREM}, each
 * weighted one gives its extra slots back exactly once, an expired lease is reported unknown, and an id named
 * twice counts once.
 */
class LuaScriptsReleaseTest {

    private static final String LIMITS = "8:16:0";

    private RedisFixture redis;
    private final BulkheadKeys keys = new BulkheadKeys("direct");

    @BeforeEach
    void startRedis() {
        redis = new RedisFixture(RedisServer.start());
    }

    @AfterEach
    void stopRedis() {
        redis.close();
    }

    private List<Object> run(LuaScripts.Script script, String... arguments) {
        String[] argv = new String[1 + arguments.length];
        argv[0] = LIMITS;
        System.arraycopy(arguments, 0, argv, 1, arguments.length);
        return redis.inspect().eval(script.source(), ScriptOutputType.MULTI, keys.all(), argv);
    }

    private void hold(String id, long expiryMillis) {
        redis.inspect().zadd(keys.all()[0], expiryMillis, id);
    }

    @Test
    void aReleaseOfSeveralIdsGivesEachWeightBackOnceAndReportsOnlyTheExpiredOneUnknown() {
        long later = System.currentTimeMillis() + 600_000;
        hold("a", later);
        hold("b#3", later);
        hold("c#2", System.currentTimeMillis() - 1_000);
        redis.inspect().set(keys.all()[5], "3");
        redis.inspect().configResetstat();

        List<Object> outcomes = run(LuaScripts.RELEASE, "a", "b#3", "c#2", "b#3", "never-held");

        assertThat(outcomes).containsExactly(1L, 1L, 0L, 0L, 0L);
        assertThat(redis.inspect().zcard(keys.all()[0])).isZero();
        assertThat(redis.inspect().get(keys.all()[5])).as("extra slots 2 + 1 given back once").isNull();
        assertThat(redis.inspect().info("commandstats"))
                .as("one ZREM for the holders, one on the queue for the id never held")
                .contains("cmdstat_zrem:calls=2,");
    }

    @Test
    void anAcquireCarryingReleasesDecidesAfterThem() {
        long later = System.currentTimeMillis() + 600_000;
        for (int i = 0; i < 7; i++) {
            hold("held-" + i, later);
        }
        hold("heavy#2", later);
        redis.inspect().set(keys.all()[5], "1");

        // 9 slots in use of 8 (a lowered limit): without its releases this acquire could not fit.
        List<Object> reply = run(LuaScripts.ACQUIRE, "new#2", "60000", "0", "2", "heavy#2", "held-0");

        assertThat(reply.subList(0, 4)).containsExactly(1L, 8L, 0L, 8L);
        assertThat(reply.subList(6, 8)).containsExactly(1L, 1L);
        assertThat(redis.inspect().get(keys.all()[5])).as("heavy's extra slot back, new's taken").isEqualTo("1");
    }

    @Test
    void aMissingConfigIsInitializedFromTheLimitsArgument() {
        List<Object> reply = run(LuaScripts.COUNTS);

        assertThat(reply).as("maxWaitNanos comes back as the string it is stored as")
                .containsExactly(0L, 0L, 8L, 16L, "0");
        assertThat(redis.inspect().hgetall(keys.all()[3])).containsEntry("maxConcurrency", "8")
                .containsEntry("maxQueue", "16").containsEntry("maxWaitNanos", "0");
    }
}
