package dev.bulwark.opentelemetry;

import dev.bulwark.testing.FreshJvmRace;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 37 for the OpenTelemetry binding: the first bindings, calls through bulkheads being bound and collections of a
 * fresh JVM, raced from many threads (see {@link TelemetryFirstUseRace}), never hang. Each round is a new JVM; every
 * hang fails the test with the child's thread dump. Half the rounds run without the core's first-use rehearsal
 * ({@code -Ddev.bulwark.rehearseFirstUse=false}), where the racing callers initialise every class themselves.
 */
class TelemetryFirstUseRaceTest {

    @Test
    void bindingCallingAndCollectingForTheFirstTimeAtOnceNeverHangs() throws Exception {
        FreshJvmRace.assertEveryRoundEnds(TelemetryFirstUseRace.class, 5, Duration.ofSeconds(60),
                List.of("-Ddev.bulwark.rehearseFirstUse=false"));
        FreshJvmRace.assertEveryRoundEnds(TelemetryFirstUseRace.class, 5, Duration.ofSeconds(60), List.of());
    }
}
