package dev.bulwark.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bulwark.Bulkhead;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A call that waited in the bulkhead runs in its own gRPC {@link Context}, not in the Context of the call whose end
 * freed the slot (the grant runs inside that call's callback, with its Context attached). Before, the queued server
 * call's handler saw the other call's deadline and values and was cancelled with it, and the queued client call was
 * bound to the other call's Context: cancelling its own did nothing, cancelling the other's killed it.
 */
class GrpcContextTest {

    private static final Metadata.Key<String> TENANT_HEADER =
            Metadata.Key.of("x-tenant", Metadata.ASCII_STRING_MARSHALLER);
    private static final Context.Key<String> TENANT = Context.key("tenant");

    private final Map<String, Context> handlerContexts = new ConcurrentHashMap<>();
    private final Map<String, CountDownLatch> replies = new ConcurrentHashMap<>();

    /** Hold: records the handler's Context under the request, then answers once the test counts the latch down. */
    private ServerServiceDefinition recordingService() {
        return ServerServiceDefinition.builder(HoldService.SERVICE)
                .addMethod(HoldService.HOLD, ServerCalls.asyncUnaryCall((String request,
                                                                         StreamObserver<String> responses) -> {
                    CountDownLatch reply = replies.computeIfAbsent(request, ignored -> new CountDownLatch(1));
                    handlerContexts.put(request, Context.current());
                    new Thread(() -> {
                        try {
                            reply.await(30, TimeUnit.SECONDS);
                        } catch (InterruptedException ignored) {
                            Thread.currentThread().interrupt();
                        }
                        responses.onNext("done " + request);
                        responses.onCompleted();
                    }).start();
                })).build();
    }

    /** An inner interceptor that derives a Context per call from a header, as auth and tenant interceptors do. */
    private static final ServerInterceptor TENANT_FROM_HEADER = new ServerInterceptor() {
        @Override
        public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                           ServerCallHandler<Q, R> next) {
            return Contexts.interceptCall(Context.current().withValue(TENANT, headers.get(TENANT_HEADER)), call,
                    headers, next);
        }
    };

    private static Metadata tenant(String name) {
        Metadata headers = new Metadata();
        headers.put(TENANT_HEADER, name);
        return headers;
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aQueuedServerCallRunsInItsOwnContext(Transport transport) throws Exception {
        Bulkhead bulkhead = Bulkhead.builder().name("ctx-in").maxConcurrency(1).maxQueue(1).build();
        // The last interceptor is the outermost: the bulkhead admits, then the tenant Context is derived.
        try (Transport.Running running = transport.start(ServerInterceptors.intercept(recordingService(),
                TENANT_FROM_HEADER, BulkheadServerInterceptor.of(bulkhead)))) {
            HoldService.Call first = HoldService.start(running.channel(), HoldService.HOLD, "A",
                    CallOptions.DEFAULT.withDeadlineAfter(1, TimeUnit.HOURS), tenant("a"));
            await().until(() -> handlerContexts.containsKey("A"));
            HoldService.Call queued = HoldService.start(running.channel(), HoldService.HOLD, "B",
                    CallOptions.DEFAULT.withDeadlineAfter(2, TimeUnit.HOURS), tenant("b"));
            await().until(() -> bulkhead.queuedCount() == 1);

            replies.computeIfAbsent("A", ignored -> new CountDownLatch(1)).countDown();
            assertThat(first.await().status().getCode()).isEqualTo(Status.Code.OK);
            await().until(() -> handlerContexts.containsKey("B"));
            Context contextOfA = handlerContexts.get("A");
            await().until(contextOfA::isCancelled); // gRPC ends a call's Context once the call is over
            Context contextOfB = handlerContexts.get("B");

            assertThat(TENANT.get(contextOfB)).isEqualTo("b");
            assertThat(contextOfB.getDeadline().timeRemaining(TimeUnit.MINUTES)).isGreaterThan(90);
            assertThat(contextOfB.isCancelled()).as("not ended with the call that freed the slot").isFalse();
            replies.computeIfAbsent("B", ignored -> new CountDownLatch(1)).countDown();
            assertThat(queued.await().status().getCode()).isEqualTo(Status.Code.OK);
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aQueuedClientCallIsBoundToTheContextItWasStartedIn(Transport transport) throws Exception {
        Bulkhead bulkhead = Bulkhead.builder().name("ctx-out").maxConcurrency(1).maxQueue(1).build();
        try (Transport.Running running = transport.start(recordingService())) {
            Channel channel = ClientInterceptors.intercept(running.channel(), BulkheadClientInterceptor.of(bulkhead));
            Context.CancellableContext contextOfA = Context.current().withCancellation();
            Context.CancellableContext contextOfB = Context.current().withCancellation();
            HoldService.Call first = contextOfA.call(() -> HoldService.start(channel, HoldService.HOLD, "A"));
            await().until(() -> handlerContexts.containsKey("A"));
            HoldService.Call queued = contextOfB.call(() -> HoldService.start(channel, HoldService.HOLD, "B"));
            await().until(() -> bulkhead.queuedCount() == 1);

            // A's end (on a thread with A's Context attached) grants B's slot and sends B.
            replies.computeIfAbsent("A", ignored -> new CountDownLatch(1)).countDown();
            assertThat(first.await().status().getCode()).isEqualTo(Status.Code.OK);
            await().atMost(Duration.ofSeconds(10)).until(() -> handlerContexts.containsKey("B"));

            contextOfA.cancel(null); // A is over: its Context is nothing to B
            replies.computeIfAbsent("B", ignored -> new CountDownLatch(1)).countDown();
            assertThat(queued.await().status().getCode()).isEqualTo(Status.Code.OK);

            // And B's own Context does reach the call it was started in.
            HoldService.Call third = contextOfB.call(() -> HoldService.start(channel, HoldService.HOLD, "C"));
            await().until(() -> handlerContexts.containsKey("C"));
            contextOfB.cancel(null);
            assertThat(third.await().status().getCode()).isEqualTo(Status.Code.CANCELLED);
            replies.computeIfAbsent("C", ignored -> new CountDownLatch(1)).countDown();
        }
        assertThat(bulkhead.executingCount()).isZero();
    }
}
