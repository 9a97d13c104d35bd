package dev.bulwark.spring.shedding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bulwark.Bulkhead;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import reactor.blockhound.BlockHound;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Issue 18 item 1: the WebFlux filter never blocks a Netty event loop or a Reactor non-blocking thread, whatever
 * happens to a request (admitted at once, queued then granted, refused at once, refused at the maximum wait,
 * cancelled while queued). BlockHound, installed for this JVM (its own surefire execution), records every blocking
 * call made on such a thread; the control test shows that it does record one.
 */
@EnabledIfSystemProperty(named = "bulwark.blockhound", matches = "true")
class SheddingBlockHoundTest {

    private static final List<String> BLOCKING_CALLS = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void installBlockHound() {
        // install(...) also applies the integrations found on the class path: Reactor's (its non-blocking
        // schedulers) and Netty's (its event loops); the callback records instead of throwing.
        BlockHound.install(builder -> builder.blockingMethodCallback(method -> BLOCKING_CALLS.add(method + " on "
                + Thread.currentThread().getName() + " from " + callerFrames())));
    }

    /** Where the blocking call came from (BlockHound's own frames left out), so that a failure names its cause. */
    private static String callerFrames() {
        return Stream.of(new Throwable().getStackTrace())
                .filter(frame -> !frame.getClassName().startsWith("reactor.blockhound")
                        && !frame.getClassName().equals(SheddingBlockHoundTest.class.getName()))
                .limit(12).map(StackTraceElement::toString).collect(Collectors.joining(" <- "));
    }

    @Test
    void controlBlockHoundRecordsABlockingCallOnANonBlockingThread() {
        int before = BLOCKING_CALLS.size();
        Mono.fromCallable(() -> {
            Thread.sleep(1);
            return "slept";
        }).subscribeOn(Schedulers.parallel()).block();
        assertThat(BLOCKING_CALLS).hasSizeGreaterThan(before);
        BLOCKING_CALLS.clear();
    }

    @Test
    void noRequestPathThroughTheFilterBlocksANonBlockingThread() throws Exception {
        try (RunningApp app = RunningApp.reactive("bulwark.bulkheads.api.max-concurrency=2",
                "bulwark.bulkheads.api.max-queue=3", "bulwark.bulkheads.api.max-wait=400ms",
                "bulwark.shedding.routes[0].pattern=/api/**", "bulwark.shedding.routes[0].bulkhead=api")) {
            BLOCKING_CALLS.clear();
            Bulkhead api = app.bulkhead("api");
            Gate gate = app.gate();
            List<CompletableFuture<HttpResponse<String>>> admitted = new ArrayList<>();
            admitted.add(app.get("/api/hold/1"));
            admitted.add(app.get("/api/hold/2"));
            await().until(() -> gate.entered() == 2);

            // Queued, then refused by the bulkhead's timer at the maximum wait.
            assertThat(SheddingContract.answer(app.get("/api/hold/late")).body()).contains("WAIT_TIMEOUT");
            // Queued, then cancelled by the client going away.
            Socket gone = app.openRaw("/api/hold/gone");
            await().until(() -> api.queuedCount() == 1);
            gone.close();
            await().until(() -> api.queuedCount() == 0);
            // Queued, then granted when a slot frees; and refused at once when the queue is full.
            admitted.add(app.get("/api/hold/3"));
            admitted.add(app.get("/api/hold/4"));
            admitted.add(app.get("/api/hold/5"));
            await().until(() -> api.queuedCount() == 3);
            assertThat(SheddingContract.answer(app.get("/api/hold/full")).statusCode()).isEqualTo(503);
            gate.releaseAll();
            assertThat(Stream.of(admitted.toArray(CompletableFuture[]::new))
                    .map(response -> SheddingContract.answer((CompletableFuture<HttpResponse<String>>) response)
                            .statusCode())).containsOnly(200);
            await().until(() -> api.executingCount() == 0);

            assertThat(BLOCKING_CALLS).as("blocking calls on non-blocking threads").isEmpty();
        }
    }
}
