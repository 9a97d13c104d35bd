package dev.bulwark.redis;

import dev.bulwark.redis.testing.RedisServer;
import dev.bulwark.testing.FreshJvmRace;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 37 for the cluster-wide bulkhead: the first calls of a fresh JVM, raced from many threads (see
 * {@link RedisFirstUseRace}), never hang. Each round is a new JVM, since a class is initialised once per JVM and
 * only a fresh one can deadlock on it; every hang fails the test with the child's thread dump. Half the rounds run
 * without the first-use preparation that {@code build()} does ({@code -Ddev.bulwark.rehearseFirstUse=false}), where
 * the racing callers themselves initialise every class: the preparation would otherwise hide a new cycle.
 */
class RedisFirstUseRaceTest {

    private static RedisServer server;

    @BeforeAll
    static void startRedis() {
        server = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() {
        server.close();
    }

    @Test
    void theFirstCallsOfEveryEntryPointRacedFromManyThreadsNeverHang() throws Exception {
        String port = Integer.toString(server.port());
        // Eight fresh JVMs (each starts Lettuce and five bulkheads): about 30 s on a loaded two-core machine.
        FreshJvmRace.assertEveryRoundEnds(RedisFirstUseRace.class, 4, Duration.ofSeconds(90),
                List.of("-Ddev.bulwark.rehearseFirstUse=false"), port);
        FreshJvmRace.assertEveryRoundEnds(RedisFirstUseRace.class, 4, Duration.ofSeconds(90), List.of(), port);
    }
}
