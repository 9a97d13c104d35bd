package dev.bulwark.grpc;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.Scheduler;
import dev.bulwark.grpc.internal.DeferredClientCall;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.function.Function;

/**
 * Bulkheads a gRPC client's outgoing calls: each call takes a slot before it is sent and gives it back when it
 * closes, so that no more than the bulkhead's limit run against the server at once.
 *
 * <pre>{@code
 * Bulkhead inventory = Bulkhead.builder().name("inventory").maxConcurrency(16).maxQueue(64)
 *         .maxWait(Duration.ofMillis(100)).build();
 * Channel channel = ClientInterceptors.intercept(managedChannel, BulkheadClientInterceptor.of(inventory));
 * InventoryGrpc.InventoryStub stub = InventoryGrpc.newStub(channel);
 * }</pre>
 *
 * <p><b>Asynchronous.</b> A call that must wait is a queue entry, not a thread: {@code start} returns at once, and
 * the call is sent by the thread that frees a slot. Messages, requests and the half-close the application issues
 * meanwhile are held and sent in order.
 *
 * <p><b>Cancellation.</b> A queued call leaves the queue at once, and is never sent, when the application cancels it,
 * when the {@link io.grpc.Context} it was started in is cancelled, or when its deadline passes; its listener gets
 * {@code onClose} with {@code CANCELLED} (the application's message and cause) or {@code DEADLINE_EXCEEDED}. Once
 * sent, cancellation is the real call's.
 *
 * <p><b>Refusal.</b> A refused call is closed locally, without reaching the network, with
 * {@link Builder#refusalStatus(Status.Code)} ({@code RESOURCE_EXHAUSTED} by default, or {@code UNAVAILABLE}), the
 * refusal's {@link BulkheadRejectedException#getMessage() message} as description and the
 * {@link BulkheadRejectedException} as {@link Status#getCause() cause} (so
 * {@code StatusRuntimeException.getCause()} is the {@code BulkheadRejectedException}, whose
 * {@link BulkheadRejectedException#rejection() rejection()} is the {@link dev.bulwark.Rejection}).
 *
 * <p><b>Threads.</b> The listener of a call closed locally is called on {@link CallOptions#getExecutor()} when the
 * call has one (blocking stubs do), otherwise on {@link Builder#callbackExecutor(Executor)}; never on the bulkhead's
 * timer thread. When that executor throws instead of taking the task (shut down, say), the listener is called on
 * {@link java.util.concurrent.ForkJoinPool#commonPool()} instead, so the call still ends. The slot is released
 * exactly once, when the real call's listener gets {@code onClose}.
 *
 * <p>Immutable and thread-safe.
 */
public final class BulkheadClientInterceptor implements ClientInterceptor {

    private final Function<MethodDescriptor<?, ?>, Optional<Bulkhead>> bulkheadFor;
    private final Executor callbackExecutor;
    private final Scheduler scheduler;
    private final Function<BulkheadRejectedException, Status> refusalStatus;

    private BulkheadClientInterceptor(Builder builder) {
        this.bulkheadFor = builder.bulkheadFor;
        this.callbackExecutor = builder.callbackExecutor;
        this.scheduler = builder.scheduler;
        Status status = Status.fromCode(builder.refusalStatus);
        this.refusalStatus = refused -> status.withDescription(refused.getMessage()).withCause(refused);
    }

    /**
     * Makes an interceptor that sends every call of the channel through one bulkhead, with the defaults of
     * {@link #builder()}.
     *
     * @param bulkhead the bulkhead
     * @return a new interceptor
     * @throws NullPointerException when {@code bulkhead} is {@code null}
     */
    public static BulkheadClientInterceptor of(Bulkhead bulkhead) {
        Objects.requireNonNull(bulkhead, "bulkhead");
        return builder().perMethod(method -> Optional.of(bulkhead)).build();
    }

    /**
     * Starts configuring an interceptor. Defaults: refusals close with {@code RESOURCE_EXHAUSTED}; locally closed
     * calls without an executor of their own are told on {@link ForkJoinPool#commonPool()}; deadlines of queued
     * calls are timed on {@link Scheduler#shared()}. {@link Builder#perMethod} must be set.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Returns the call, deferred until its bulkhead grants a slot; a method without a bulkhead goes straight to
     * {@code next}. Never blocks.
     *
     * @throws NullPointerException when an argument is {@code null}
     */
    @Override
    public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(MethodDescriptor<ReqT, RespT> method,
                                                               CallOptions callOptions, Channel next) {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(callOptions, "callOptions");
        Objects.requireNonNull(next, "next");
        Optional<Bulkhead> bulkhead = bulkheadFor.apply(method);
        if (bulkhead.isEmpty()) {
            return next.newCall(method, callOptions);
        }
        return new DeferredClientCall<>(next, method, callOptions, bulkhead.get(), callbackExecutor, scheduler,
                refusalStatus);
    }

    @Override
    public String toString() {
        return "BulkheadClientInterceptor";
    }

    /**
     * Configures a {@link BulkheadClientInterceptor}. Not thread-safe: configure on one thread, then
     * {@link #build()}. Each setter checks its argument at once and names it in the exception.
     */
    public static final class Builder {

        private Function<MethodDescriptor<?, ?>, Optional<Bulkhead>> bulkheadFor;
        private Executor callbackExecutor = ForkJoinPool.commonPool();
        private Scheduler scheduler = Scheduler.shared();
        private Status.Code refusalStatus = Status.Code.RESOURCE_EXHAUSTED;

        private Builder() {
        }

        /**
         * Sends each method's calls through the bulkhead {@code bulkheadFor} returns for it. The function is asked
         * once per method, on its first call, and its answer kept; an empty answer leaves the method unlimited.
         *
         * @param bulkheadFor the bulkhead of a method, or empty for none; must not return {@code null}
         * @return this builder
         * @throws NullPointerException when {@code bulkheadFor} is {@code null}
         */
        public Builder perMethod(Function<? super MethodDescriptor<?, ?>, Optional<Bulkhead>> bulkheadFor) {
            Objects.requireNonNull(bulkheadFor, "bulkheadFor");
            ConcurrentMap<String, Optional<Bulkhead>> resolved = new ConcurrentHashMap<>();
            this.bulkheadFor = method -> {
                Optional<Bulkhead> known = resolved.get(method.getFullMethodName());
                return known != null ? known : resolved.computeIfAbsent(method.getFullMethodName(),
                        name -> Objects.requireNonNull(bulkheadFor.apply(method),
                                () -> "bulkheadFor returned null for " + name));
            };
            return this;
        }

        /**
         * Sets the status a refused call closes with.
         *
         * @param code {@link Status.Code#RESOURCE_EXHAUSTED} (the default) or {@link Status.Code#UNAVAILABLE}
         *     (which gRPC's retry and hedging policies usually list as retryable)
         * @return this builder
         * @throws NullPointerException when {@code code} is {@code null}
         * @throws IllegalArgumentException when {@code code} is another code
         */
        public Builder refusalStatus(Status.Code code) {
            Objects.requireNonNull(code, "code");
            if (code != Status.Code.RESOURCE_EXHAUSTED && code != Status.Code.UNAVAILABLE) {
                throw new IllegalArgumentException("code must be RESOURCE_EXHAUSTED or UNAVAILABLE but was " + code);
            }
            this.refusalStatus = code;
            return this;
        }

        /**
         * Sets the executor that tells a call's listener it was refused or cancelled while queued, for calls whose
         * {@link CallOptions} name no executor. Default: {@link ForkJoinPool#commonPool()}, which is also used for a
         * task this executor throws on (shut down, say).
         *
         * @param executor the executor
         * @return this builder
         * @throws NullPointerException when {@code executor} is {@code null}
         */
        public Builder callbackExecutor(Executor executor) {
            this.callbackExecutor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        /**
         * Sets the scheduler that ends the wait of a queued call at its deadline (for tests). Default:
         * {@link Scheduler#shared()}. When it throws instead of timing a call's deadline (shut down, say), that call
         * ends at once with {@code DEADLINE_EXCEEDED}, so that none waits past its deadline untimed.
         *
         * @param scheduler the scheduler
         * @return this builder
         * @throws NullPointerException when {@code scheduler} is {@code null}
         */
        public Builder scheduler(Scheduler scheduler) {
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            return this;
        }

        /**
         * Builds the interceptor.
         *
         * @return a new interceptor
         * @throws IllegalStateException when {@link #perMethod} was not set
         */
        public BulkheadClientInterceptor build() {
            if (bulkheadFor == null) {
                throw new IllegalStateException("no bulkhead chosen: set perMethod");
            }
            return new BulkheadClientInterceptor(this);
        }
    }
}
