package dev.bulwark.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.Rejection;
import dev.bulwark.testing.CountingListener;
import dev.bulwark.testing.ManualTime;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Bulkheaded outgoing calls over real transports: exact counts, local refusal, cancellation and deadlines. */
class BulkheadClientInterceptorTest {

    private final HoldService service = new HoldService();
    private final CountingListener events = new CountingListener();

    private Bulkhead bulkhead(int maxConcurrency, int maxQueue) {
        return Bulkhead.builder().name("grpc-out").maxConcurrency(maxConcurrency).maxQueue(maxQueue)
                .listener(events).build();
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void sendsUpToTheLimitHoldsTheQueuedWithoutAThreadAndRefusesTheRestLocally(Transport transport)
            throws Exception {
        Bulkhead bulkhead = bulkhead(2, 2);
        try (Transport.Running running = transport.start(service.bindService())) {
            Channel channel = ClientInterceptors.intercept(running.channel(), BulkheadClientInterceptor.of(bulkhead));
            List<HoldService.Call> calls = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                calls.add(HoldService.start(channel, HoldService.HOLD, "call-" + i));
            }
            HoldService.Held first = service.nextHeld();
            HoldService.Held second = service.nextHeld();
            assertThat(bulkhead.queuedCount()).isEqualTo(2);
            HoldService.Outcome refused = HoldService.start(channel, HoldService.HOLD, "refused").await();

            assertThat(refused.status().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
            assertThat(refused.status().getDescription())
                    .isEqualTo("Bulkhead 'grpc-out' rejected the call: QUEUE_FULL (executing 2 of 2, queued 2 of 2)");
            assertThat(refused.status().getCause()).isInstanceOfSatisfying(BulkheadRejectedException.class,
                    rejected -> assertThat(rejected.rejection().reason()).isEqualTo(Rejection.Reason.QUEUE_FULL));
            assertThat(service.started).containsExactlyInAnyOrder("call-0", "call-1");

            first.reply();
            second.reply();
            service.nextHeld().reply();
            service.nextHeld().reply();
            for (HoldService.Call call : calls) {
                HoldService.Outcome outcome = call.await();
                assertThat(outcome.status().isOk()).isTrue();
                assertThat(outcome.response()).startsWith("done call-");
            }
            assertThat(service.started).hasSize(4).doesNotContain("refused");
            await().until(() -> events.released.get() == 4);
            assertThat(events.admitted).hasValue(4);
            assertThat(events.rejected).hasValue(1);
            assertThat(bulkhead.executingCount()).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void cancellingAQueuedCallLeavesTheQueueAndNeverSendsIt(Transport transport) throws Exception {
        Bulkhead bulkhead = bulkhead(1, 3);
        try (Transport.Running running = transport.start(service.bindService())) {
            Channel channel = ClientInterceptors.intercept(running.channel(), BulkheadClientInterceptor.of(bulkhead));
            HoldService.Call holder = HoldService.start(channel, HoldService.HOLD, "holder");
            HoldService.Held held = service.nextHeld();
            HoldService.Call queued = HoldService.start(channel, HoldService.HOLD, "queued");
            assertThat(bulkhead.queuedCount()).isEqualTo(1);
            IllegalStateException why = new IllegalStateException("user navigated away");

            queued.call().cancel("no longer needed", why);

            HoldService.Outcome outcome = queued.await();
            assertThat(outcome.status().getCode()).isEqualTo(Status.Code.CANCELLED);
            assertThat(outcome.status().getDescription()).isEqualTo("no longer needed");
            assertThat(outcome.status().getCause()).isSameAs(why);
            assertThat(bulkhead.queuedCount()).isZero();
            assertThat(events.cancelled).hasValue(1);
            held.reply();
            holder.await();
            await().until(() -> bulkhead.executingCount() == 0);
            assertThat(service.started).containsExactly("holder");
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void cancellingASentCallCancelsItOnTheServerAndReleasesTheSlot(Transport transport) throws Exception {
        Bulkhead bulkhead = bulkhead(1, 0);
        try (Transport.Running running = transport.start(service.bindService())) {
            Channel channel = ClientInterceptors.intercept(running.channel(), BulkheadClientInterceptor.of(bulkhead));
            HoldService.Call call = HoldService.start(channel, HoldService.HOLD, "sent");
            HoldService.Held held = service.nextHeld();

            call.call().cancel("stop", null);

            assertThat(call.await().status().getCode()).isEqualTo(Status.Code.CANCELLED);
            held.cancelledOnServer.get(10, TimeUnit.SECONDS);
            assertThat(events.released).hasValue(1);
            assertThat(bulkhead.executingCount()).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aDeadlinePassingWhileQueuedEndsTheCallWithDeadlineExceeded(Transport transport) throws Exception {
        ManualTime time = new ManualTime();
        Bulkhead bulkhead = bulkhead(1, 3);
        BulkheadClientInterceptor interceptor = BulkheadClientInterceptor.builder()
                .perMethod(method -> Optional.of(bulkhead)).scheduler(time).build();
        try (Transport.Running running = transport.start(service.bindService())) {
            Channel channel = ClientInterceptors.intercept(running.channel(), interceptor);
            HoldService.Call holder = HoldService.start(channel, HoldService.HOLD, "holder");
            HoldService.Held held = service.nextHeld();
            HoldService.Call queued = HoldService.start(channel, HoldService.HOLD, "queued",
                    CallOptions.DEFAULT.withDeadline(Deadline.after(1, TimeUnit.HOURS)), new Metadata());
            assertThat(time.pendingTasks()).isEqualTo(1);

            time.advance(Duration.ofHours(1));

            HoldService.Outcome outcome = queued.await();
            assertThat(outcome.status().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
            assertThat(outcome.status().getDescription()).contains("waiting for bulkhead 'grpc-out'");
            assertThat(bulkhead.queuedCount()).isZero();
            held.reply();
            holder.await();
            assertThat(service.started).containsExactly("holder");
            assertThat(time.pendingTasks()).as("the admitted call's deadline timer is cancelled").isZero();
        }
    }

    /**
     * A scheduler that threw anything but a RejectedExecutionException while timing a call's deadline made start()
     * throw it, with the context's cancellation listener left registered.
     */
    @ParameterizedTest
    @EnumSource(Transport.class)
    void aSchedulerThatThrowsEndsACallWithADeadlineAtOnceInsteadOfThrowingFromStart(Transport transport)
            throws Exception {
        Bulkhead bulkhead = bulkhead(1, 3);
        dev.bulwark.Scheduler broken = (task, delay, unit) -> {
            throw new IllegalStateException("the scheduler broke");
        };
        BulkheadClientInterceptor interceptor = BulkheadClientInterceptor.builder()
                .perMethod(method -> Optional.of(bulkhead)).scheduler(broken).build();
        try (Transport.Running running = transport.start(service.bindService())) {
            Channel channel = ClientInterceptors.intercept(running.channel(), interceptor);

            HoldService.Outcome outcome = HoldService.start(channel, HoldService.HOLD, "deadlined",
                    CallOptions.DEFAULT.withDeadline(Deadline.after(1, TimeUnit.HOURS)), new Metadata()).await();

            assertThat(outcome.status().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
            assertThat(bulkhead.queuedCount()).isZero();
            assertThat(bulkhead.executingCount()).isZero();
            assertThat(service.started).isEmpty();
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void cancellingTheContextOfAQueuedCallLeavesTheQueue(Transport transport) throws Exception {
        Bulkhead bulkhead = bulkhead(1, 3);
        try (Transport.Running running = transport.start(service.bindService())) {
            Channel channel = ClientInterceptors.intercept(running.channel(), BulkheadClientInterceptor.of(bulkhead));
            HoldService.Call holder = HoldService.start(channel, HoldService.HOLD, "holder");
            HoldService.Held held = service.nextHeld();
            Context.CancellableContext context = Context.current().withCancellation();
            HoldService.Call queued = context.call(() -> HoldService.start(channel, HoldService.HOLD, "queued"));

            context.cancel(new IllegalStateException("request scope ended"));

            assertThat(queued.await().status().getCode()).isEqualTo(Status.Code.CANCELLED);
            assertThat(bulkhead.queuedCount()).isZero();
            held.reply();
            holder.await();
            assertThat(service.started).containsExactly("holder");
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aBlockingStubIsRefusedWithTheConfiguredStatus(Transport transport) throws Exception {
        Bulkhead bulkhead = bulkhead(1, 0);
        BulkheadClientInterceptor interceptor = BulkheadClientInterceptor.builder()
                .perMethod(method -> method.getBareMethodName().equals("Echo") ? Optional.empty()
                        : Optional.of(bulkhead))
                .refusalStatus(Status.Code.UNAVAILABLE).build();
        try (Transport.Running running = transport.start(service.bindService())) {
            Channel channel = ClientInterceptors.intercept(running.channel(), interceptor);
            HoldService.Call holder = HoldService.start(channel, HoldService.HOLD, "holder");
            HoldService.Held held = service.nextHeld();

            assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(channel, HoldService.HOLD, CallOptions.DEFAULT,
                    "blocked")).isInstanceOfSatisfying(StatusRuntimeException.class, refused -> {
                        assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
                        assertThat(refused.getStatus().getCause()).isInstanceOf(BulkheadRejectedException.class);
                    });
            assertThat(ClientCalls.blockingUnaryCall(channel, HoldService.ECHO, CallOptions.DEFAULT, "unlimited"))
                    .isEqualTo("unlimited");
            held.reply();
            holder.await();
            java.util.concurrent.CompletableFuture<String> later = java.util.concurrent.CompletableFuture.supplyAsync(
                    () -> ClientCalls.blockingUnaryCall(channel, HoldService.HOLD, CallOptions.DEFAULT, "later"));
            service.nextHeld().reply();
            assertThat(later.get(10, TimeUnit.SECONDS)).isEqualTo("done later");
        }
    }

    /**
     * A call closed locally is told on the callback executor. One that threw instead of taking the task (here: shut
     * down) left the call open for good: its failure was swallowed by the permit's future, and onClose never came.
     */
    @ParameterizedTest
    @EnumSource(Transport.class)
    void aCallbackExecutorThatThrowsStillClosesRefusedAndCancelledCalls(Transport transport) throws Exception {
        Bulkhead bulkhead = bulkhead(1, 1);
        java.util.concurrent.ExecutorService shutDown = java.util.concurrent.Executors.newSingleThreadExecutor();
        shutDown.shutdown();
        BulkheadClientInterceptor interceptor = BulkheadClientInterceptor.builder()
                .perMethod(method -> Optional.of(bulkhead)).callbackExecutor(shutDown).build();
        try (Transport.Running running = transport.start(service.bindService())) {
            Channel channel = ClientInterceptors.intercept(running.channel(), interceptor);
            HoldService.Call holder = HoldService.start(channel, HoldService.HOLD, "holder");
            HoldService.Held held = service.nextHeld();
            HoldService.Call queued = HoldService.start(channel, HoldService.HOLD, "queued");

            HoldService.Outcome refused = HoldService.start(channel, HoldService.HOLD, "refused").await();
            assertThat(refused.status().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);

            queued.call().cancel("no longer needed", null);
            assertThat(queued.await().status().getCode()).isEqualTo(Status.Code.CANCELLED);
            assertThat(bulkhead.queuedCount()).isZero();
            held.reply();
            assertThat(holder.await().status().isOk()).isTrue();
            await().until(() -> bulkhead.executingCount() == 0);
            assertThat(service.started).containsExactly("holder");
        }
    }

    @Test
    void badConfigurationFailsAtOnceNamingTheProblem() {
        assertThatThrownBy(() -> BulkheadClientInterceptor.builder().build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("perMethod");
        assertThatThrownBy(() -> BulkheadClientInterceptor.builder().refusalStatus(Status.Code.INTERNAL))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("code must be RESOURCE_EXHAUSTED or UNAVAILABLE but was INTERNAL");
        assertThatThrownBy(() -> BulkheadClientInterceptor.of(null))
                .isInstanceOf(NullPointerException.class).hasMessage("bulkhead");
        assertThatThrownBy(() -> BulkheadClientInterceptor.builder().callbackExecutor(null))
                .isInstanceOf(NullPointerException.class).hasMessage("executor");
    }
}
