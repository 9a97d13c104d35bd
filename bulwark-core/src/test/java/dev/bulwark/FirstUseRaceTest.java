package dev.bulwark;

import dev.bulwark.testing.FreshJvmRace;
import java.time.Duration;
import java.util.List;
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
        FreshJvmRace.assertEveryRoundEnds(FirstUseRace.class, rounds, CHILD_DEADLINE, jvmOptions, scenario);
    }
}
