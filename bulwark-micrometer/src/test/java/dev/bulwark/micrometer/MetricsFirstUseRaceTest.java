package dev.bulwark.micrometer;

import dev.bulwark.testing.FreshJvmRace;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 37 for the Micrometer binding: the first bindings, calls through bulkheads being bound and scrapes of a
 * fresh JVM, raced from many threads (see {@link MetricsFirstUseRace}), never hang. Each round is a new JVM; every
 * hang fails the test with the child's thread dump. Half the rounds run without the core's first-use rehearsal
 * ({@code -Ddev.bulwark.rehearseFirstUse=false}), where the racing callers initialise every class themselves.
 */
class MetricsFirstUseRaceTest {

    @Test
    void bindingCallingAndScrapingForTheFirstTimeAtOnceNeverHangs() throws Exception {
        FreshJvmRace.assertEveryRoundEnds(MetricsFirstUseRace.class, 5, Duration.ofSeconds(60),
                List.of("-Ddev.bulwark.rehearseFirstUse=false"));
        FreshJvmRace.assertEveryRoundEnds(MetricsFirstUseRace.class, 5, Duration.ofSeconds(60), List.of());
    }
}
