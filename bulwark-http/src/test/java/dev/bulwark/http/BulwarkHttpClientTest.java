package dev.bulwark.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.PartitionedBulkhead;
import dev.bulwark.Pipeline;
import dev.bulwark.Rejection;
import dev.bulwark.Retry;
import dev.bulwark.Timeout;
import dev.bulwark.TimeoutExceededException;
import dev.bulwark.testing.CapturingScheduler;
import dev.bulwark.testing.CountingListener;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The decorator against a real HTTP server on loopback: exact counts, refusal, cancellation, pipelines. */
class BulwarkHttpClientTest {

    private final LoopbackServer server;
    private final HttpClient jdkClient = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final CountingListener events = new CountingListener();

    BulwarkHttpClientTest() throws IOException {
        server = new LoopbackServer();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private Bulkhead bulkhead(int maxConcurrency, int maxQueue) {
        return Bulkhead.builder().name("http-out").maxConcurrency(maxConcurrency).maxQueue(maxQueue)
                .listener(events).build();
    }

    private HttpRequest get(String pathAndQuery) {
        return HttpRequest.newBuilder(server.uri(pathAndQuery)).build();
    }

    @Test
    void sendsUpToTheLimitQueuesWithoutAThreadAndRefusesTheRestBeforeTheNetwork() throws Exception {
        Bulkhead bulkhead = bulkhead(2, 2);
        HttpClient client = BulwarkHttpClient.of(jdkClient, bulkhead);
        List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            sent.add(client.sendAsync(get("/hold?n=" + i), HttpResponse.BodyHandlers.ofString()));
        }
        CountDownLatch first = server.nextHeld();
        CountDownLatch second = server.nextHeld();
        assertThat(bulkhead.queuedCount()).isEqualTo(2);

        CompletableFuture<HttpResponse<String>> refused = client.sendAsync(get("/hold?n=refused"),
                HttpResponse.BodyHandlers.ofString());

        assertThatThrownBy(() -> refused.get(10, TimeUnit.SECONDS)).cause()
                .isInstanceOfSatisfying(BulkheadRejectedException.class, rejected ->
                        assertThat(rejected.rejection().reason()).isEqualTo(Rejection.Reason.QUEUE_FULL));
        assertThat(server.received).containsExactlyInAnyOrder("/hold?n=0", "/hold?n=1");

        first.countDown();
        second.countDown();
        server.nextHeld().countDown();
        server.nextHeld().countDown();
        for (CompletableFuture<HttpResponse<String>> response : sent) {
            assertThat(response.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        }
        assertThat(server.received).hasSize(4).doesNotContain("/hold?n=refused");
        await().until(() -> events.released.get() == 4);
        assertThat(events.admitted).hasValue(4);
        assertThat(events.rejected).hasValue(1);
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void cancellingAQueuedRequestLeavesTheQueueAtOnceAndNeverSendsIt() throws Exception {
        Bulkhead bulkhead = bulkhead(1, 3);
        HttpClient client = BulwarkHttpClient.of(jdkClient, bulkhead);
        CompletableFuture<HttpResponse<String>> holder = client.sendAsync(get("/hold?n=holder"),
                HttpResponse.BodyHandlers.ofString());
        CountDownLatch held = server.nextHeld();
        CompletableFuture<HttpResponse<String>> queued = client.sendAsync(get("/ok?n=queued"),
                HttpResponse.BodyHandlers.ofString());
        assertThat(bulkhead.queuedCount()).isEqualTo(1);

        assertThat(queued.cancel(true)).isTrue();

        assertThat(bulkhead.queuedCount()).isZero();
        assertThat(events.cancelled).hasValue(1);
        held.countDown();
        assertThat(holder.get(10, TimeUnit.SECONDS).body()).isEqualTo("held n=holder");
        await().until(() -> bulkhead.executingCount() == 0);
        assertThat(server.received).containsExactly("/hold?n=holder");
        assertThat(events.admitted).hasValue(1);
    }

    @Test
    void anExchangeATimeoutInThePipelineAbandonedIsAbortedAndItsSlotFreed() throws Exception {
        Bulkhead bulkhead = bulkhead(1, 0);
        CapturingScheduler deadlines = new CapturingScheduler();
        Timeout timeout = Timeout.builder().name("http-deadline").timeout(Duration.ofSeconds(1)).scheduler(deadlines)
                .build();
        HttpClient client = BulwarkHttpClient.of(jdkClient, Pipeline.of(timeout, bulkhead));
        CompletableFuture<HttpResponse<Void>> streaming = client.sendAsync(get("/stream"),
                HttpResponse.BodyHandlers.discarding());
        assertThat(server.streamStarted.await(10, TimeUnit.SECONDS)).isTrue();

        deadlines.task(0).run(); // the deadline passes while the body streams

        assertThatThrownBy(() -> streaming.get(10, TimeUnit.SECONDS)).cause()
                .isInstanceOf(TimeoutExceededException.class);
        assertThat(server.streamAborted.get(20, TimeUnit.SECONDS)).as("the server saw the exchange aborted")
                .isInstanceOf(IOException.class);
        await().until(() -> bulkhead.executingCount() == 0);
        assertThat(client.sendAsync(get("/ok?n=after"), HttpResponse.BodyHandlers.ofString())
                .get(10, TimeUnit.SECONDS).body()).as("the slot is free again").isEqualTo("ok n=after");
    }

    @Test
    void cancellingARequestInFlightAbortsTheExchangeAndReleasesTheSlot() throws Exception {
        Bulkhead bulkhead = bulkhead(1, 0);
        HttpClient client = BulwarkHttpClient.of(jdkClient, bulkhead);
        CompletableFuture<HttpResponse<String>> streaming = client.sendAsync(get("/stream"),
                HttpResponse.BodyHandlers.ofString());
        assertThat(server.streamStarted.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(bulkhead.executingCount()).isEqualTo(1);

        streaming.cancel(true);

        assertThat(server.streamAborted.get(20, TimeUnit.SECONDS)).isInstanceOf(IOException.class);
        await().until(() -> bulkhead.executingCount() == 0);
        assertThat(events.released).hasValue(1);
        assertThat(client.sendAsync(get("/ok?n=after"), HttpResponse.BodyHandlers.ofString())
                .get(10, TimeUnit.SECONDS).body()).isEqualTo("ok n=after");
    }

    @Test
    void aTimeoutOnTheReturnedFutureIsTheCallerGivingUpToo() throws Exception {
        Bulkhead bulkhead = bulkhead(1, 3);
        HttpClient client = BulwarkHttpClient.of(jdkClient, bulkhead);
        CompletableFuture<HttpResponse<String>> holder = client.sendAsync(get("/hold?n=holder"),
                HttpResponse.BodyHandlers.ofString());
        CountDownLatch held = server.nextHeld();
        CompletableFuture<HttpResponse<String>> queued = client.sendAsync(get("/ok?n=queued"),
                HttpResponse.BodyHandlers.ofString());

        queued.completeExceptionally(new java.util.concurrent.TimeoutException("caller's own deadline"));

        assertThat(bulkhead.queuedCount()).isZero();
        held.countDown();
        holder.get(10, TimeUnit.SECONDS);
        assertThat(server.received).containsExactly("/hold?n=holder");
    }

    @Test
    void aPipelineRetriesTheExchangeAndEachAttemptTakesItsOwnSlot() throws Exception {
        Bulkhead bulkhead = bulkhead(1, 0);
        Retry retry = Retry.builder().name("http-retry").handle(IOException.class).maxRetries(2)
                .delay(Duration.ofMillis(1)).build();
        HttpClient client = BulwarkHttpClient.of(jdkClient, Pipeline.of(retry, bulkhead));

        HttpResponse<String> response = client.sendAsync(get("/drop"), HttpResponse.BodyHandlers.ofString())
                .get(10, TimeUnit.SECONDS);

        assertThat(response.body()).isEqualTo("second attempt");
        assertThat(server.received).containsExactly("/drop", "/drop");
        await().until(() -> events.released.get() == 2);
        assertThat(events.admitted).hasValue(2);
    }

    @Test
    void theDelegatesIOExceptionPassesThroughUntouched() {
        HttpClient client = BulwarkHttpClient.of(jdkClient, bulkhead(1, 0));
        CompletableFuture<HttpResponse<String>> dropped = client.sendAsync(get("/drop"),
                HttpResponse.BodyHandlers.ofString());
        assertThatThrownBy(() -> dropped.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(IOException.class);
        await().until(() -> events.released.get() == 1);
    }

    @Test
    void sendBlocksUnderThePolicyAndThrowsItsRefusal() throws Exception {
        Bulkhead bulkhead = bulkhead(1, 0);
        HttpClient client = BulwarkHttpClient.of(jdkClient, bulkhead);
        assertThat(client.send(get("/ok?n=sync"), HttpResponse.BodyHandlers.ofString()).body()).isEqualTo("ok n=sync");

        CompletableFuture<HttpResponse<String>> holder = client.sendAsync(get("/hold?n=holder"),
                HttpResponse.BodyHandlers.ofString());
        CountDownLatch held = server.nextHeld();
        assertThatThrownBy(() -> client.send(get("/ok?n=refused"), HttpResponse.BodyHandlers.ofString()))
                .isInstanceOf(BulkheadRejectedException.class);
        held.countDown();
        holder.get(10, TimeUnit.SECONDS);
        assertThat(server.received).doesNotContain("/ok?n=refused");
    }

    @Test
    void interruptingSendWhileQueuedThrowsInterruptedExceptionAndSendsNothing() throws Exception {
        Bulkhead bulkhead = bulkhead(1, 1);
        HttpClient client = BulwarkHttpClient.of(jdkClient, bulkhead);
        CompletableFuture<HttpResponse<String>> holder = client.sendAsync(get("/hold?n=holder"),
                HttpResponse.BodyHandlers.ofString());
        CountDownLatch held = server.nextHeld();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicReference<Boolean> interruptFlagAfter = new AtomicReference<>();
        Thread sender = new Thread(() -> {
            try {
                client.send(get("/ok?n=interrupted"), HttpResponse.BodyHandlers.ofString());
            } catch (Throwable failure) {
                thrown.set(failure);
                interruptFlagAfter.set(Thread.currentThread().isInterrupted());
            }
        });
        sender.start();
        await().until(() -> bulkhead.queuedCount() == 1);

        sender.interrupt();
        sender.join(10_000);

        assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
        assertThat(interruptFlagAfter.get()).isFalse();
        assertThat(bulkhead.queuedCount()).isZero();
        held.countDown();
        holder.get(10, TimeUnit.SECONDS);
        assertThat(server.received).containsExactly("/hold?n=holder");
    }

    @Test
    void perRequestPicksAPartitionPerPath() throws Exception {
        PartitionedBulkhead<String> paths = PartitionedBulkhead.<String>builder().name("paths")
                .defaultConfig(Bulkhead.builder().maxConcurrency(1).config()).build();
        HttpClient client = BulwarkHttpClient.perRequest(jdkClient,
                request -> paths.forKey(request.uri().getPath()));
        CompletableFuture<HttpResponse<String>> holder = client.sendAsync(get("/hold?n=holder"),
                HttpResponse.BodyHandlers.ofString());
        CountDownLatch held = server.nextHeld();

        CompletableFuture<HttpResponse<String>> samePath = client.sendAsync(get("/hold?n=second"),
                HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> otherPath = client.send(get("/ok?n=other"), HttpResponse.BodyHandlers.ofString());

        assertThatThrownBy(() -> samePath.get(10, TimeUnit.SECONDS)).cause()
                .isInstanceOf(BulkheadRejectedException.class).hasMessageContaining("paths[/hold]");
        assertThat(otherPath.body()).isEqualTo("ok n=other");
        held.countDown();
        holder.get(10, TimeUnit.SECONDS);
    }

    @Test
    void configurationIsTheDelegatesAndBadArgumentsFailAtOnce() {
        BulwarkHttpClient client = BulwarkHttpClient.of(jdkClient, bulkhead(1, 0));
        assertThat(client.delegate()).isSameAs(jdkClient);
        assertThat(client.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
        assertThat(client.followRedirects()).isEqualTo(jdkClient.followRedirects());
        assertThat(client.executor()).isEqualTo(jdkClient.executor());
        assertThat(client.connectTimeout()).isEqualTo(jdkClient.connectTimeout());
        assertThatThrownBy(() -> BulwarkHttpClient.of(null, bulkhead(1, 0)))
                .isInstanceOf(NullPointerException.class).hasMessage("delegate");
        assertThatThrownBy(() -> BulwarkHttpClient.of(jdkClient, null))
                .isInstanceOf(NullPointerException.class).hasMessage("policy");
        assertThatThrownBy(() -> client.sendAsync(null, HttpResponse.BodyHandlers.ofString()))
                .isInstanceOf(NullPointerException.class).hasMessage("request");
        assertThatThrownBy(() -> BulwarkHttpClient.perRequest(jdkClient, request -> null)
                .sendAsync(get("/ok"), HttpResponse.BodyHandlers.ofString()))
                .isInstanceOf(NullPointerException.class).hasMessageStartingWith("policyFor returned null");
    }

    @Test
    void lifeCycleMethodsReachTheDelegateFromJava21On() throws Exception {
        HttpClient own = HttpClient.newHttpClient();
        BulwarkHttpClient client = BulwarkHttpClient.of(own, bulkhead(1, 0));
        client.shutdownNow();
        boolean terminated = client.awaitTermination(Duration.ofSeconds(10));
        if (Runtime.version().feature() >= 21) {
            assertThat(terminated).isTrue();
            assertThat(client.isTerminated()).isTrue();
        } else {
            assertThat(terminated).isFalse();
            assertThat(client.isTerminated()).isFalse();
        }
    }

}
