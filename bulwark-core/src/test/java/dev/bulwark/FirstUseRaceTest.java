package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.testing.FreshJvm;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Issue 37: the first calls of a fresh JVM, raced from several threads, never hang. Each round is a new JVM (see
 * {@link FirstUseRace}), since a class is initialised once per JVM and only a fresh one can deadlock on it. Two
 * children run at a time. Every hang fails the test with the child's thread dump.
 *
 * <p>Both with the first-use rehearsal that {@code build()} runs by default (the user's experience) and without it
 * ({@code -Ddev.bulwark.rehearseFirstUse=false}), where the racing callers themselves initialise every class of the
 * slow paths: the rehearsal would otherwise hide a new initialisation cycle from this test.
 *
 * <p>On the code before the fix, the refusal race hung in 5 to 8 JVMs of 12 (an initialisation cycle between
 * {@code BulkheadRejectedException} and {@code RejectionAccess}).
 */
class FirstUseRaceTest {

    private static final Duration CHILD_DEADLINE = Duration.ofSeconds(40);
    private static final List<String> NO_REHEARSAL = List.of("-Ddev.bulwark.rehearseFirstUse=false");

    @Test
    void theFirstRefusalsWithAndWithoutAHandlerNeverDeadlockInAHundredFreshJvms() throws Exception {
        assertEveryRoundEnds(100, NO_REHEARSAL, "refusals");
    }

    @Test
    void theFirstUseOfEveryEntryPointRacedFromSeveralThreadsNeverHangs() throws Exception {
        assertEveryRoundEnds(20, NO_REHEARSAL, "all");
        assertEveryRoundEnds(10, List.of(), "all");
    }

    private static void assertEveryRoundEnds(int rounds, List<String> jvmOptions, String scenario) throws Exception {
        ExecutorService twoAtATime = Executors.newFixedThreadPool(2);
        try {
            List<Future<FreshJvm.Result>> results = new ArrayList<>();
            for (int i = 0; i < rounds; i++) {
                results.add(twoAtATime.submit(() -> FreshJvm.run(FirstUseRace.class, CHILD_DEADLINE, jvmOptions,
                        scenario)));
            }
            for (int i = 0; i < rounds; i++) {
                FreshJvm.Result result = results.get(i).get();
                assertThat(result.exitCode())
                        .as("fresh JVM %d of %d (%s %s) ended with %d:%n%s", i + 1, rounds, scenario, jvmOptions,
                                result.exitCode(), result.output())
                        .isZero();
            }
        } finally {
            twoAtATime.shutdownNow();
        }
    }
}
