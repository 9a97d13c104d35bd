package dev.bulwark.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.testing.FirstUseMeter;
import dev.bulwark.testing.FreshJvm;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Issue 37 for the gRPC server interceptor: in a fresh JVM (see {@link GrpcFirstCalls}), the first refusal costs the
 * transport's thread about what a later one does. Measured here, with gRPC's own first calls (an answer, and a close
 * with an error status) paid before: 1.1 to 5.2 ms and 3 to 5 classes for the first refusal's
 * {@code interceptCall}, 0.1 to 1.2 ms for later ones. Without that warm-up the first refusal is also the
 * transport's first close with an error status, which costs gRPC itself 7 to 65 ms (Netty's first trailers-only
 * response); no interceptor can pay that ahead. No fix was needed; this guards it.
 */
class GrpcFirstCallsTest {

    @Test
    void theFirstRefusalCostsTheTransportThreadAboutWhatALaterOneDoes() throws Exception {
        ExecutorService twoAtATime = Executors.newFixedThreadPool(2);
        try {
            List<Transport> transports = List.of(Transport.NETTY_LOOPBACK, Transport.IN_PROCESS);
            List<Future<FreshJvm.Result>> runs = transports.stream().map(transport -> twoAtATime.submit(() ->
                    FreshJvm.run(GrpcFirstCalls.class, Duration.ofSeconds(60), List.of(), transport.name())))
                    .toList();
            for (int i = 0; i < transports.size(); i++) {
                FreshJvm.Result run = runs.get(i).get();
                String output = transports.get(i) + ":\n" + run.output();
                assertThat(run.exitCode()).as(output).isZero();
                Map<String, Long> figures = FirstUseMeter.figures(run.output());
                assertThat(figures).as(output).doesNotContainKeys("cold.unexpected", "warm.unexpected",
                        "warm2.unexpected");
                assertThat(figures.get("cold.intercept.classes")).as(output).isLessThanOrEqualTo(10);
                assertThat(figures.get("cold.intercept")).as(output).isLessThan(50_000);
            }
        } finally {
            twoAtATime.shutdownNow();
        }
    }
}
