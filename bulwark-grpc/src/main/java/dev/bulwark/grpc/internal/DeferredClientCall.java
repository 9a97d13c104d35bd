package dev.bulwark.grpc.internal;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.CancellationSignal;
import dev.bulwark.Permit;
import dev.bulwark.Scheduler;
import dev.bulwark.internal.util.Stages;
import io.grpc.Attributes;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * An outgoing call that first takes a slot of a bulkhead, without a thread, then becomes the real call.
 *
 * <p>Design: {@link #start} asks the bulkhead for a permit asynchronously. Until it is granted, the application's
 * {@code request}, {@code sendMessage}, {@code halfClose} and {@code cancel} are held in an {@link OrderedDrain}; the
 * grant opens the drain with the action that creates and starts the real call, and the held actions follow in order
 * (the drain never runs two at a time, so the real call, which is not thread-safe, is used serially). The permit is
 * released exactly once, when the real call's listener gets {@code onClose} (or when the real call could not start).
 *
 * <p>While queued, the call leaves the queue at once when the application cancels it, when the {@link Context} it
 * was started in is cancelled, or when its deadline passes (the {@link Scheduler} only cancels the wait; it runs no
 * application code). A refused or cancelled call is closed locally: the listener's {@code onClose} runs on the call's
 * executor ({@link CallOptions#getExecutor()}, or the interceptor's), never on the refusing or timer thread (on the
 * common pool when that executor throws instead of taking it).
 *
 * @param <ReqT> the request type
 * @param <RespT> the response type
 */
public final class DeferredClientCall<ReqT, RespT> extends ClientCall<ReqT, RespT> {

    private final Channel next;
    private final MethodDescriptor<ReqT, RespT> method;
    private final CallOptions callOptions;
    private final Bulkhead bulkhead;
    private final Executor callbackExecutor;
    private final Scheduler scheduler;
    private final Function<BulkheadRejectedException, Status> refusalStatus;
    /** The application's Context when it created the call: the real call is created, and bound, in it. */
    private final Context context = Context.current();
    private final CancellationSignal signal = CancellationSignal.create();
    private final OrderedDrain drain = new OrderedDrain(this::failed, context);

    private volatile ClientCall<ReqT, RespT> real;
    private volatile Listener<RespT> listener;
    /** Set by the drained cancel action, read by the drained start action: both run serially on the drain. */
    private boolean cancelledBeforeStart;
    private volatile Status cancelStatus;

    /**
     * Creates the deferred call.
     *
     * @param next the channel that makes the real call
     * @param method the method
     * @param callOptions the call's options
     * @param bulkhead the bulkhead the call needs a slot in
     * @param callbackExecutor runs {@code onClose} of a call closed locally when the options name no executor
     * @param scheduler times out the wait at the call's deadline
     * @param refusalStatus the status a refused call closes with
     */
    public DeferredClientCall(Channel next, MethodDescriptor<ReqT, RespT> method, CallOptions callOptions,
                              Bulkhead bulkhead, Executor callbackExecutor, Scheduler scheduler,
                              Function<BulkheadRejectedException, Status> refusalStatus) {
        this.next = next;
        this.method = method;
        this.callOptions = callOptions;
        this.bulkhead = bulkhead;
        this.callbackExecutor = callOptions.getExecutor() != null ? callOptions.getExecutor() : callbackExecutor;
        this.scheduler = scheduler;
        this.refusalStatus = refusalStatus;
    }

    @Override
    public void start(Listener<RespT> responseListener, Metadata headers) {
        if (listener != null) {
            throw new IllegalStateException("the call was already started");
        }
        listener = java.util.Objects.requireNonNull(responseListener, "responseListener");
        java.util.Objects.requireNonNull(headers, "headers");
        Context.CancellationListener onContextCancelled = cancelledContext -> {
            Status status = io.grpc.Contexts.statusFromCancelled(cancelledContext);
            signal.cancel((status == null ? Status.CANCELLED : status).asRuntimeException());
        };
        context.addListener(onContextCancelled, Runnable::run);
        Scheduler.Cancellable deadlineTimer = scheduleDeadline();
        CompletableFuture<Permit> permit = bulkhead.acquireAsync(signal);
        permit.whenComplete((granted, failure) -> {
            context.removeListener(onContextCancelled);
            deadlineTimer.cancel();
            if (failure == null) {
                drain.open(() -> startReal(granted, headers));
            } else {
                drain.discard();
                closeLocally(statusOf(Stages.unwrap(failure)));
            }
        });
    }

    private Scheduler.Cancellable scheduleDeadline() {
        Deadline deadline = earliest(callOptions.getDeadline(), context.getDeadline());
        if (deadline == null) {
            return () -> { };
        }
        long remaining = deadline.timeRemaining(TimeUnit.NANOSECONDS);
        Runnable expire = () -> signal.cancel(Status.DEADLINE_EXCEEDED
                .withDescription("deadline passed while waiting for bulkhead '" + bulkhead.name() + "'")
                .asRuntimeException());
        try {
            return scheduler.schedule(expire, remaining, TimeUnit.NANOSECONDS);
        } catch (RuntimeException | Error refused) {
            // Untimed, the wait could outlive the deadline: end it now. Whatever the scheduler threw (shut down, or
            // anything else): thrown on, it would escape start() with the context's cancellation listener still set.
            expire.run();
            return () -> { };
        }
    }

    private static Deadline earliest(Deadline a, Deadline b) {
        if (a == null) {
            return b;
        }
        return b == null ? a : a.minimum(b);
    }

    private void startReal(Permit permit, Metadata headers) {
        if (cancelledBeforeStart) {
            permit.close();
            closeLocally(cancelStatus);
            return;
        }
        ClientCall<ReqT, RespT> call = next.newCall(method, callOptions);
        real = call;
        try {
            call.start(new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
                @Override
                public void onClose(Status status, Metadata trailers) {
                    permit.close();
                    super.onClose(status, trailers);
                }
            }, headers);
        } catch (RuntimeException failure) {
            // gRPC would have thrown to the caller of start(), long gone: end the call with the failure instead.
            real = null;
            permit.close();
            closeLocally(Status.fromThrowable(failure));
        }
    }

    private Status statusOf(Throwable failure) {
        if (failure instanceof BulkheadRejectedException) {
            return refusalStatus.apply((BulkheadRejectedException) failure);
        }
        if (failure instanceof CancellationException) {
            Status requested = cancelStatus;
            if (requested != null) {
                return requested;
            }
            Throwable reason = failure.getCause();
            return reason != null ? Status.fromThrowable(reason) : Status.CANCELLED.withCause(failure);
        }
        return Status.fromThrowable(failure);
    }

    /**
     * Tells the listener the call ended, on the call's executor. When that executor throws instead of taking the
     * task (shut down, or anything else it throws), on the common pool, and only if that refuses too on this thread:
     * thrown on, the failure would be swallowed by the permit's future or the drain, and the call would never close.
     */
    private void closeLocally(Status status) {
        Listener<RespT> target = listener;
        Runnable close = () -> target.onClose(status, new Metadata());
        try {
            callbackExecutor.execute(close);
        } catch (RuntimeException | Error refused) {
            try {
                ForkJoinPool.commonPool().execute(close);
            } catch (RejectedExecutionException alsoRefused) {
                close.run();
            }
        }
    }

    private void failed(Throwable failure) {
        // A held action threw on the granting thread, where nobody can catch it: end the call with it instead.
        ClientCall<ReqT, RespT> call = real;
        if (call != null) {
            try {
                call.cancel("a held call action failed", failure);
            } catch (RuntimeException alsoFailed) {
                failure.addSuppressed(alsoFailed);
            }
        }
    }

    /** Runs {@code action} on the real call, in order with the other actions; dropped when the call never started. */
    private void onReal(java.util.function.Consumer<ClientCall<ReqT, RespT>> action) {
        drain.submit(() -> {
            ClientCall<ReqT, RespT> call = real;
            if (call != null) {
                action.accept(call);
            }
        });
    }

    @Override
    public void request(int numMessages) {
        onReal(call -> call.request(numMessages));
    }

    @Override
    public void cancel(String message, Throwable cause) {
        Status status = Status.CANCELLED;
        status = message != null ? status.withDescription(message) : status.withDescription("Call cancelled");
        if (cause != null) {
            status = status.withCause(cause);
        }
        if (cancelStatus == null) {
            cancelStatus = status;
        }
        drain.submit(() -> {
            ClientCall<ReqT, RespT> call = real;
            if (call == null) {
                cancelledBeforeStart = true;
            } else {
                call.cancel(message, cause);
            }
        });
        // Leaves the queue at once when still waiting; the permit future then closes the call locally.
        signal.cancel(status.asRuntimeException());
    }

    @Override
    public void halfClose() {
        onReal(call -> call.halfClose());
    }

    @Override
    public void sendMessage(ReqT message) {
        onReal(call -> call.sendMessage(message));
    }

    @Override
    public void setMessageCompression(boolean enabled) {
        onReal(call -> call.setMessageCompression(enabled));
    }

    @Override
    public boolean isReady() {
        ClientCall<ReqT, RespT> call = real;
        return call != null && call.isReady();
    }

    @Override
    public Attributes getAttributes() {
        ClientCall<ReqT, RespT> call = real;
        return call != null ? call.getAttributes() : Attributes.EMPTY;
    }

    @Override
    public String toString() {
        return "DeferredClientCall[" + method.getFullMethodName() + " through " + bulkhead.name() + "]";
    }
}
