package dev.bulwark.grpc.internal;

import dev.bulwark.CancellationSignal;
import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.Status;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * The listener the transport talks to while a server call waits for its bulkhead slot, and afterwards.
 *
 * <p>Design: the transport may deliver {@code onReady} or {@code onCancel} before the call is admitted; they are held
 * in an {@link OrderedDrain} and replayed, in order, to the application's listener once the slot is granted and
 * {@link ServerCallHandler#startCall} has created it (the drain guarantees the application's listener is never called
 * concurrently, as gRPC requires). The slot is held by the stage {@link #start} returns, which completes, exactly
 * once, when the transport reports {@code onComplete} or {@code onCancel}. A cancellation while queued cancels the
 * {@link CancellationSignal} the bulkhead waits with, so the call leaves the queue at once and is never started.
 *
 * @param <ReqT> the request message type
 */
public final class DeferredServerListener<ReqT> extends ServerCall.Listener<ReqT> {

    private final ServerCall<ReqT, ?> call;
    private final CancellationSignal signal = CancellationSignal.create();
    private final CompletableFuture<Void> finished = new CompletableFuture<>();
    /**
     * The call's own Context, current when the interceptor made this listener: the application's listener is
     * created and called in it, as gRPC does for a call admitted at once (not in the Context of the call whose end
     * freed the slot, whose deadline and cancellation it would otherwise take).
     */
    private final OrderedDrain drain = new OrderedDrain(this::failed, Context.current());
    private volatile ServerCall.Listener<ReqT> delegate;
    private volatile boolean cancelled;

    /**
     * Creates the listener of one call.
     *
     * @param call the call it listens to
     */
    public DeferredServerListener(ServerCall<ReqT, ?> call) {
        this.call = call;
    }

    /** The signal the bulkhead wait uses: cancelled when the transport reports {@code onCancel}. */
    public CancellationSignal signal() {
        return signal;
    }

    /**
     * Starts the call: the bulkhead granted its slot. Runs on the granting thread.
     *
     * @return the stage that holds the slot: completes when the call completes or is cancelled
     */
    public <RespT> CompletionStage<Void> start(ServerCall<ReqT, RespT> admitted, Metadata headers,
                                                 ServerCallHandler<ReqT, RespT> next) {
        if (cancelled) {
            // Granted at the very instant the client went away: never start it.
            drain.discard();
            return finished;
        }
        drain.open(() -> delegate = next.startCall(admitted, headers));
        return finished;
    }

    /** The call will never start (refused, or cancelled while queued): drop whatever the transport reported. */
    public void abandon() {
        drain.discard();
    }

    private void deliver(Consumer<ServerCall.Listener<ReqT>> event) {
        drain.submit(() -> {
            ServerCall.Listener<ReqT> current = delegate;
            if (current != null) {
                event.accept(current);
            }
        });
    }

    private void failed(Throwable failure) {
        // startCall or an application callback threw: gRPC itself would close the call with the failure's status.
        try {
            call.close(Status.fromThrowable(failure), new Metadata());
        } catch (RuntimeException alreadyClosed) {
            failure.addSuppressed(alreadyClosed);
        }
        finished.complete(null);
    }

    @Override
    public void onMessage(ReqT message) {
        deliver(listener -> listener.onMessage(message));
    }

    @Override
    public void onHalfClose() {
        deliver(ServerCall.Listener::onHalfClose);
    }

    @Override
    public void onReady() {
        deliver(ServerCall.Listener::onReady);
    }

    @Override
    public void onCancel() {
        cancelled = true;
        signal.cancel(new CancellationException("the gRPC call was cancelled by the client or its deadline"));
        deliver(ServerCall.Listener::onCancel);
        finished.complete(null);
    }

    @Override
    public void onComplete() {
        deliver(ServerCall.Listener::onComplete);
        finished.complete(null);
    }
}
