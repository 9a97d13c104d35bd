package dev.bulwark.grpc;

import dev.bulwark.testing.FreshJvmRace;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 37 for the gRPC interceptors: the first admissions, refusals and cancellations of both interceptors in a
 * fresh JVM, raced from many threads (see {@link GrpcFirstUseRace}), never hang. Each round is a new JVM; every
 * hang fails the test with the child's thread dump. Half the rounds run without the core's first-use rehearsal
 * ({@code -Ddev.bulwark.rehearseFirstUse=false}), where the racing callers initialise every class themselves.
 */
class GrpcFirstUseRaceTest {

    @Test
    void theFirstCallsThroughBothInterceptorsRacedNeverHang() throws Exception {
        FreshJvmRace.assertEveryRoundEnds(GrpcFirstUseRace.class, 5, Duration.ofSeconds(60),
                List.of("-Ddev.bulwark.rehearseFirstUse=false"));
        FreshJvmRace.assertEveryRoundEnds(GrpcFirstUseRace.class, 5, Duration.ofSeconds(60), List.of());
    }
}
