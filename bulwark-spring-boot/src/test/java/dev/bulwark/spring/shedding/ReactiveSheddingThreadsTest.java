package dev.bulwark.spring.shedding;

import static dev.bulwark.spring.shedding.SheddingContract.answer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bulwark.Bulkhead;
import dev.bulwark.Permit;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Where the WebFlux application runs, over real HTTP (docs/load-shedding.md, "WebFlux: never blocking"): a request
 * admitted at once on its own Reactor Netty thread, a request that waited in the queue on Reactor's
 * {@code Schedulers.parallel()}, never on a Netty thread. Each round queues one request behind a slot the test holds
 * and frees the slot the instant the request is counted in the queue, so the grant lands while the request's own
 * thread is still on its way out of the bulkhead: before the filter took "at once or after waiting" from the
 * bulkhead's own outcome, such a grant read as "at once" and the application ran on the Netty thread.
 */
class ReactiveSheddingThreadsTest {

    /** Enough to catch a failure rate of 3 in 160 with a probability above 97% (1 - (157/160)^200). */
    private static final int ROUNDS = 200;

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aRequestThatWaitedAlwaysReachesTheControllerOnTheParallelScheduler() {
        try (RunningApp app = RunningApp.reactive("bulwark.bulkheads.api.max-concurrency=1",
                "bulwark.bulkheads.api.max-queue=1", "bulwark.bulkheads.api.max-wait=30s",
                "bulwark.shedding.routes[0].pattern=/api/**", "bulwark.shedding.routes[0].bulkhead=api")) {
            Bulkhead api = app.bulkhead("api");
            assertThat(answer(app.get("/api/thread")).body()).as("admitted at once: its own Netty thread")
                    .startsWith("reactor-http-");

            List<String> notOnParallel = new ArrayList<>();
            for (int round = 0; round < ROUNDS; round++) {
                Permit held = api.acquire();
                CompletableFuture<HttpResponse<String>> waiting = app.get("/api/thread");
                spinUntilQueued(api);

                held.close();

                HttpResponse<String> waited = answer(waiting);
                assertThat(waited.statusCode()).isEqualTo(200);
                if (!waited.body().startsWith("parallel-")) {
                    notOnParallel.add("round " + round + ": " + waited.body());
                }
                // Released just after the response (doFinally); polled without Awaitility's default 100 ms delay.
                await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1)).atMost(Duration.ofSeconds(10))
                        .until(() -> api.executingCount() == 0);
            }

            assertThat(notOnParallel).as("rounds of %d whose queued request ran off Schedulers.parallel()", ROUNDS)
                    .isEmpty();
        }
    }

    /**
     * Waits, spinning, until the request is counted in the queue. Not Awaitility: the point is to free the slot within
     * microseconds of the count, while the request's thread may still be inside the bulkhead's call; a poll interval
     * would free it long after, when the race is over. Bounded, so a request that never queues fails the test.
     */
    private static void spinUntilQueued(Bulkhead bulkhead) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (bulkhead.queuedCount() != 1) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("the request did not queue within 10 s");
            }
            Thread.onSpinWait();
        }
    }
}
