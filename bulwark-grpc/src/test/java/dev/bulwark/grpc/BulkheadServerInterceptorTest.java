package dev.bulwark.grpc;

import static dev.bulwark.grpc.BulkheadServerInterceptor.REJECTION_REASON;
import static dev.bulwark.grpc.BulkheadServerInterceptor.RETRY_PUSHBACK;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.bulwark.Bulkhead;
import dev.bulwark.PartitionedBulkhead;
import dev.bulwark.testing.CountingListener;
import dev.bulwark.testing.ManualTime;
import io.grpc.CallOptions;
import io.grpc.Metadata;
import io.grpc.Status;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

/** Inbound load shedding over real transports: exact counts, queueing, cancellation while queued, pushback. */
class BulkheadServerInterceptorTest {

    private static final Metadata.Key<String> TENANT = Metadata.Key.of("x-tenant", Metadata.ASCII_STRING_MARSHALLER);

    private final HoldService service = new HoldService();
    private final CountingListener events = new CountingListener();

    private Bulkhead bulkhead(int maxConcurrency, int maxQueue) {
        return Bulkhead.builder().name("grpc-in").maxConcurrency(maxConcurrency).maxQueue(maxQueue)
                .listener(events).build();
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void admitsUpToTheLimitQueuesTheNextAndShedsTheRestWithPushback(Transport transport) throws Exception {
        Bulkhead bulkhead = bulkhead(2, 2);
        try (Transport.Running running = transport.start(service, BulkheadServerInterceptor.of(bulkhead))) {
            List<HoldService.Call> calls = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                calls.add(HoldService.start(running.channel(), HoldService.HOLD, "running-" + i));
            }
            HoldService.Held first = service.nextHeld();
            HoldService.Held second = service.nextHeld();
            for (int i = 0; i < 2; i++) {
                calls.add(HoldService.start(running.channel(), HoldService.HOLD, "queued-" + i));
            }
            await().until(() -> bulkhead.queuedCount() == 2);
            List<HoldService.Call> shed = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                shed.add(HoldService.start(running.channel(), HoldService.HOLD, "shed-" + i));
            }
            for (HoldService.Call call : shed) {
                HoldService.Outcome outcome = call.await();
                assertThat(outcome.status().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
                assertThat(outcome.status().getDescription())
                        .isEqualTo("Bulkhead 'grpc-in' rejected the call: QUEUE_FULL (executing 2 of 2, "
                                + "queued 2 of 2)");
                assertThat(outcome.trailers().get(RETRY_PUSHBACK)).isEqualTo("1000");
                assertThat(outcome.trailers().get(REJECTION_REASON)).isEqualTo("queue_full");
            }
            assertThat(service.started).containsExactlyInAnyOrder("running-0", "running-1");

            first.reply();
            second.reply();
            service.nextHeld().reply();
            service.nextHeld().reply();
            for (HoldService.Call call : calls) {
                assertThat(call.await().status().getCode()).isEqualTo(Status.Code.OK);
            }
            assertThat(service.started).hasSize(4).noneMatch(request -> request.startsWith("shed"));
            await().until(() -> events.released.get() == 4);
            assertThat(events.admitted).hasValue(4);
            assertThat(events.rejected).hasValue(3);
            assertThat(events.cancelled).hasValue(0);
            assertThat(bulkhead.executingCount()).isZero();
            assertThat(bulkhead.queuedCount()).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aCallCancelledWhileQueuedLeavesTheQueueAtOnceAndNeverRuns(Transport transport) throws Exception {
        Bulkhead bulkhead = bulkhead(1, 5);
        try (Transport.Running running = transport.start(service, BulkheadServerInterceptor.of(bulkhead))) {
            HoldService.Call holder = HoldService.start(running.channel(), HoldService.HOLD, "holder");
            HoldService.Held held = service.nextHeld();
            HoldService.Call queued = HoldService.start(running.channel(), HoldService.HOLD, "queued");
            await().until(() -> bulkhead.queuedCount() == 1);

            queued.call().cancel("client gave up", null);

            assertThat(queued.await().status().getCode()).isEqualTo(Status.Code.CANCELLED);
            await().until(() -> bulkhead.queuedCount() == 0);
            await().until(() -> events.cancelled.get() == 1);
            held.reply();
            assertThat(holder.await().status().isOk()).isTrue();
            // The freed slot found nobody: the cancelled call was never started.
            await().until(() -> bulkhead.executingCount() == 0);
            assertThat(service.started).containsExactly("holder");
            assertThat(events.admitted).hasValue(1);
            assertThat(events.released).hasValue(1);
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aDeadlinePassingWhileQueuedCancelsTheWait(Transport transport) throws Exception {
        Bulkhead bulkhead = bulkhead(1, 5);
        try (Transport.Running running = transport.start(service, BulkheadServerInterceptor.of(bulkhead))) {
            HoldService.Call holder = HoldService.start(running.channel(), HoldService.HOLD, "holder");
            HoldService.Held held = service.nextHeld();
            HoldService.Call queued = HoldService.start(running.channel(), HoldService.HOLD, "short-deadline",
                    CallOptions.DEFAULT.withDeadlineAfter(2, java.util.concurrent.TimeUnit.SECONDS),
                    new Metadata());
            // The deadline is the client's real clock (gRPC's own); it leaves the call ample time to be queued.
            await().until(() -> bulkhead.queuedCount() == 1);

            assertThat(queued.await().status().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
            await().until(() -> bulkhead.queuedCount() == 0 && events.cancelled.get() == 1);
            held.reply();
            holder.await();
            assertThat(service.started).containsExactly("holder");
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aWaitTimeoutShedsWithThePushbackOfTheWait(Transport transport) throws Exception {
        ManualTime time = new ManualTime();
        Bulkhead bulkhead = Bulkhead.builder().name("timed").maxConcurrency(1).maxQueue(1)
                .maxWait(Duration.ofMillis(250)).ticker(time).scheduler(time).listener(events).build();
        try (Transport.Running running = transport.start(service, BulkheadServerInterceptor.of(bulkhead))) {
            HoldService.Call holder = HoldService.start(running.channel(), HoldService.HOLD, "holder");
            HoldService.Held held = service.nextHeld();
            HoldService.Call queued = HoldService.start(running.channel(), HoldService.HOLD, "waits");
            await().until(() -> bulkhead.queuedCount() == 1);

            time.advance(Duration.ofMillis(250));

            HoldService.Outcome outcome = queued.await();
            assertThat(outcome.status().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
            assertThat(outcome.status().getDescription()).contains("WAIT_TIMEOUT").contains("waited 250 ms");
            assertThat(outcome.trailers().get(RETRY_PUSHBACK)).isEqualTo("250");
            assertThat(outcome.trailers().get(REJECTION_REASON)).isEqualTo("wait_timeout");
            held.reply();
            holder.await();
            assertThat(service.started).containsExactly("holder");
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void releasesTheSlotExactlyOnceWhenTheServiceThrowsOrTheClientCancelsARunningCall(Transport transport)
            throws Exception {
        Bulkhead bulkhead = bulkhead(1, 0);
        try (Transport.Running running = transport.start(service, BulkheadServerInterceptor.of(bulkhead))) {
            assertThat(HoldService.start(running.channel(), HoldService.FAIL, "boom").await().status().getCode())
                    .isEqualTo(Status.Code.UNKNOWN);
            await().until(() -> events.released.get() == 1);

            HoldService.Call running1 = HoldService.start(running.channel(), HoldService.HOLD, "abandoned");
            HoldService.Held held = service.nextHeld();
            running1.call().cancel("bye", null);
            held.cancelledOnServer.get(10, java.util.concurrent.TimeUnit.SECONDS);
            await().until(() -> events.released.get() == 2);

            assertThat(HoldService.start(running.channel(), HoldService.ECHO, "after").await().response())
                    .isEqualTo("after");
            await().until(() -> events.released.get() == 3);
            assertThat(events.admitted).hasValue(3);
            assertThat(bulkhead.executingCount()).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void perKeyGivesEachTenantItsOwnPartition(Transport transport) throws Exception {
        PartitionedBulkhead<String> tenants = PartitionedBulkhead.<String>builder().name("tenants")
                .defaultConfig(Bulkhead.builder().maxConcurrency(1).config()).build();
        BulkheadServerInterceptor interceptor = BulkheadServerInterceptor.builder()
                .perKey(tenants, TENANT, "anonymous").build();
        try (Transport.Running running = transport.start(service, interceptor)) {
            HoldService.Call noisy = HoldService.start(running.channel(), HoldService.HOLD, "a-1", CallOptions.DEFAULT,
                    tenant("a"));
            HoldService.Held held = service.nextHeld();

            HoldService.Outcome refused = HoldService.start(running.channel(), HoldService.HOLD, "a-2",
                    CallOptions.DEFAULT, tenant("a")).await();
            HoldService.Outcome other = HoldService.start(running.channel(), HoldService.ECHO, "b-1",
                    CallOptions.DEFAULT, tenant("b")).await();
            HoldService.Outcome anonymous = HoldService.start(running.channel(), HoldService.ECHO, "none").await();

            assertThat(refused.status().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
            assertThat(refused.status().getDescription()).startsWith("Bulkhead 'tenants[a]' rejected the call");
            assertThat(other.status().isOk()).isTrue();
            assertThat(anonymous.status().isOk()).isTrue();
            assertThat(tenants.partitions()).containsOnlyKeys("a", "b", "anonymous");
            held.reply();
            assertThat(noisy.await().status().isOk()).isTrue();
            assertThat(service.started).containsExactlyInAnyOrder("a-1", "b-1", "none");
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void perMethodLimitsOnlyTheMethodsItNames(Transport transport) throws Exception {
        Bulkhead hold = bulkhead(1, 0);
        List<String> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
        BulkheadServerInterceptor interceptor = BulkheadServerInterceptor.builder().perMethod(method -> {
            asked.add(method.getFullMethodName());
            return method.getBareMethodName().equals("Hold") ? Optional.of(hold) : Optional.empty();
        }).build();
        try (Transport.Running running = transport.start(service, interceptor)) {
            HoldService.Call holder = HoldService.start(running.channel(), HoldService.HOLD, "holder");
            HoldService.Held held = service.nextHeld();
            assertThat(HoldService.start(running.channel(), HoldService.HOLD, "refused").await().status().getCode())
                    .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
            for (int i = 0; i < 3; i++) {
                assertThat(HoldService.start(running.channel(), HoldService.ECHO, "echo").await().status().isOk())
                        .isTrue();
            }
            held.reply();
            holder.await();
            assertThat(asked).containsExactly("bulwark.test.Hold/Hold", "bulwark.test.Hold/Echo");
            assertThat(events.rejected).hasValue(1);
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aCustomPushbackIsSentAndAnEmptyOneSendsNone(Transport transport) throws Exception {
        Bulkhead bulkhead = bulkhead(1, 0);
        BulkheadServerInterceptor interceptor = BulkheadServerInterceptor.builder()
                .perMethod(method -> Optional.of(bulkhead))
                .retryPushback(rejection -> rejection.executingCount() > 5 ? Optional.of(Duration.ofSeconds(9))
                        : Optional.empty())
                .build();
        try (Transport.Running running = transport.start(service, interceptor)) {
            HoldService.Call holder = HoldService.start(running.channel(), HoldService.HOLD, "holder");
            HoldService.Held held = service.nextHeld();
            HoldService.Outcome refused = HoldService.start(running.channel(), HoldService.ECHO, "x").await();
            assertThat(refused.status().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
            assertThat(refused.trailers().containsKey(RETRY_PUSHBACK)).isFalse();
            assertThat(refused.trailers().get(REJECTION_REASON)).isEqualTo("queue_full");
            held.reply();
            holder.await();
        }
    }

    /** Issue 38 finding 3: a client-chosen key is a partition whose name embeds it. */
    @ParameterizedTest
    @EnumSource(Transport.class)
    void aKeyTooLongOrRefusedByTheValidatorClosesTheCallInvalidArgumentAndMakesNoPartition(Transport transport)
            throws Exception {
        PartitionedBulkhead<String> tenants = PartitionedBulkhead.<String>builder().name("tenants")
                .defaultConfig(Bulkhead.builder().maxConcurrency(1).config()).build();
        BulkheadServerInterceptor interceptor = BulkheadServerInterceptor.builder()
                .perKey(tenants, TENANT, "anonymous")
                .keyValidator(key -> {
                    if (key.equals("boom")) {
                        throw new IllegalStateException("a validator that fails");
                    }
                    return !key.startsWith("bad");
                }).build();
        String longest = "k".repeat(BulkheadServerInterceptor.DEFAULT_MAX_KEY_LENGTH);
        String tooLong = longest + "k";
        try (Transport.Running running = transport.start(service, interceptor)) {
            HoldService.Outcome long257 = HoldService.start(running.channel(), HoldService.ECHO, "long",
                    CallOptions.DEFAULT, tenant(tooLong)).await();
            HoldService.Outcome bad = HoldService.start(running.channel(), HoldService.ECHO, "bad",
                    CallOptions.DEFAULT, tenant("bad<key>")).await();
            HoldService.Outcome failing = HoldService.start(running.channel(), HoldService.ECHO, "boom",
                    CallOptions.DEFAULT, tenant("boom")).await();
            HoldService.Outcome long256 = HoldService.start(running.channel(), HoldService.ECHO, "longest",
                    CallOptions.DEFAULT, tenant(longest)).await();
            HoldService.Outcome anonymous = HoldService.start(running.channel(), HoldService.ECHO, "none").await();

            assertThat(long257.status().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
            assertThat(long257.status().getDescription())
                    .isEqualTo("the 'x-tenant' header is longer than the 256 characters this service accepts");
            assertThat(long257.trailers().get(REJECTION_REASON)).isEqualTo("invalid_key");
            for (HoldService.Outcome refused : List.of(bad, failing)) {
                assertThat(refused.status().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                assertThat(refused.status().getDescription())
                        .isEqualTo("the 'x-tenant' header is not a key this service accepts");
                assertThat(refused.trailers().get(REJECTION_REASON)).isEqualTo("invalid_key");
            }
            assertThat(long256.status().isOk()).isTrue();
            assertThat(anonymous.status().isOk()).as("the key of calls without the header is not checked").isTrue();
            assertThat(tenants.partitions()).containsOnlyKeys(longest, "anonymous");
            assertThat(service.started).containsExactlyInAnyOrder("longest", "none");
        }
    }

    /**
     * Issue 38 finding 1 over gRPC: a flood of one-off tenant ids in the metadata at a full partition table locked
     * out every tenant, new or idle through the flood, with {@code PARTITION_LIMIT} until the idle timeout. Now each
     * flood key takes an idle partition's place, the tenants get theirs back, and every refusal is counted.
     */
    @ParameterizedTest
    @EnumSource(Transport.class)
    void aFloodOfOneOffTenantIdsLocksNoTenantOutAndIsCounted(Transport transport) throws Exception {
        PartitionedBulkhead<String> tenants = PartitionedBulkhead.<String>builder().name("tenants").maxPartitions(8)
                .defaultConfig(Bulkhead.builder().maxConcurrency(1).config()).build();
        java.util.concurrent.atomic.AtomicInteger partitionLimit = new java.util.concurrent.atomic.AtomicInteger();
        tenants.addListener(new dev.bulwark.BulkheadListener() {
            @Override
            public void rejected(dev.bulwark.Rejection rejection) {
                if (rejection.reason() == dev.bulwark.Rejection.Reason.PARTITION_LIMIT) {
                    partitionLimit.incrementAndGet();
                }
            }
        });
        BulkheadServerInterceptor interceptor = BulkheadServerInterceptor.builder()
                .perKey(tenants, TENANT, "anonymous").build();
        try (Transport.Running running = transport.start(service, interceptor)) {
            assertThat(HoldService.start(running.channel(), HoldService.ECHO, "regular", CallOptions.DEFAULT,
                    tenant("regular")).await().status().isOk()).isTrue();
            for (int i = 0; i < 200; i++) {
                assertThat(HoldService.start(running.channel(), HoldService.ECHO, "flood", CallOptions.DEFAULT,
                        tenant("flood-" + i)).await().status().isOk()).as("flood call %d", i).isTrue();
            }
            assertThat(HoldService.start(running.channel(), HoldService.ECHO, "regular again", CallOptions.DEFAULT,
                    tenant("regular")).await().status().isOk()).isTrue();
            assertThat(HoldService.start(running.channel(), HoldService.ECHO, "newcomer", CallOptions.DEFAULT,
                    tenant("newcomer")).await().status().isOk()).isTrue();
            assertThat(tenants.partitionCount()).isEqualTo(8);
            assertThat(tenants.evictionCount()).isGreaterThanOrEqualTo(194);

            // Every partition busy: now a new key is refused, and the refusal is heard.
            List<HoldService.Call> holders = new java.util.ArrayList<>();
            for (int i = 0; i < 8; i++) {
                holders.add(HoldService.start(running.channel(), HoldService.HOLD, "busy-" + i, CallOptions.DEFAULT,
                        tenant("busy-" + i)));
            }
            List<HoldService.Held> held = new java.util.ArrayList<>();
            for (int i = 0; i < 8; i++) {
                held.add(service.nextHeld());
            }
            HoldService.Outcome refused = HoldService.start(running.channel(), HoldService.ECHO, "refused",
                    CallOptions.DEFAULT, tenant("one-more")).await();
            assertThat(refused.status().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
            assertThat(partitionLimit).hasValue(1);
            held.forEach(HoldService.Held::reply);
            for (HoldService.Call holder : holders) {
                assertThat(holder.await().status().isOk()).isTrue();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aShorterMaximumKeyLengthIsKept(Transport transport) throws Exception {
        PartitionedBulkhead<String> tenants = PartitionedBulkhead.<String>builder().name("tenants")
                .defaultConfig(Bulkhead.builder().maxConcurrency(1).config()).build();
        BulkheadServerInterceptor interceptor = BulkheadServerInterceptor.builder()
                .perKey(tenants, TENANT, "anonymous").maxKeyLength(4).build();
        try (Transport.Running running = transport.start(service, interceptor)) {
            assertThat(HoldService.start(running.channel(), HoldService.ECHO, "five", CallOptions.DEFAULT,
                    tenant("acme1")).await().status().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
            assertThat(HoldService.start(running.channel(), HoldService.ECHO, "four", CallOptions.DEFAULT,
                    tenant("acme")).await().status().isOk()).isTrue();
            assertThat(tenants.partitions()).containsOnlyKeys("acme");
        }
    }

    @Test
    void badConfigurationFailsAtOnceNamingTheProblem() {
        assertThatThrownBy(() -> BulkheadServerInterceptor.builder().build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("perMethod or perKey");
        assertThatThrownBy(() -> BulkheadServerInterceptor.builder().perMethod(method -> Optional.empty())
                .perKey(PartitionedBulkhead.<String>builder().build(), TENANT, ""))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("only one of perMethod and perKey");
        assertThatThrownBy(() -> BulkheadServerInterceptor.of(null))
                .isInstanceOf(NullPointerException.class).hasMessage("bulkhead");
        assertThatThrownBy(() -> BulkheadServerInterceptor.builder().retryPushback(null))
                .isInstanceOf(NullPointerException.class).hasMessage("pushback");
        assertThatThrownBy(() -> BulkheadServerInterceptor.builder().perKey(null, TENANT, ""))
                .isInstanceOf(NullPointerException.class).hasMessage("bulkhead");
        assertThatThrownBy(() -> BulkheadServerInterceptor.builder().perMethod(method -> Optional.empty())
                .keyValidator(key -> true).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("keyValidator and maxKeyLength apply only with perKey");
        assertThatThrownBy(() -> BulkheadServerInterceptor.builder().maxKeyLength(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("maxKeyLength must be at least 1 but was 0");
        assertThatThrownBy(() -> BulkheadServerInterceptor.builder().keyValidator(null))
                .isInstanceOf(NullPointerException.class).hasMessage("keyValidator");
    }

    private static Metadata tenant(String tenant) {
        Metadata headers = new Metadata();
        headers.put(TENANT, tenant);
        return headers;
    }

}
