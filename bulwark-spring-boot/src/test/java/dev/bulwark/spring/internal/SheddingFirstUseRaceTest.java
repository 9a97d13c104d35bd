package dev.bulwark.spring.internal;

import dev.bulwark.testing.FreshJvmRace;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 37 for the load-shedding filters: the first admitted, shed and timed-out requests of both filters in a fresh
 * JVM, raced from many threads (see {@link SheddingFirstUseRace}), never hang. Each round is a new JVM; every
 * hang fails the test with the child's thread dump. Half the rounds run without the first-use rehearsals (the
 * core's and the refusal's; {@code -Ddev.bulwark.rehearseFirstUse=false}), where the racing callers initialise
 * every class themselves.
 */
class SheddingFirstUseRaceTest {

    @Test
    void theFirstRequestsThroughBothFiltersRacedNeverHang() throws Exception {
        // Eight rounds, not ten: with the two applications of SheddingFirstCallsTest this module's fresh JVMs
        // already take most of a minute on a loaded two-core machine.
        FreshJvmRace.assertEveryRoundEnds(SheddingFirstUseRace.class, 4, Duration.ofSeconds(60),
                List.of("-Ddev.bulwark.rehearseFirstUse=false"));
        FreshJvmRace.assertEveryRoundEnds(SheddingFirstUseRace.class, 4, Duration.ofSeconds(60), List.of());
    }
}
