package dev.bulwark.grpc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Forced interleavings of a queued server call: the transport's events before and after the grant, and a grant that
 * races the client's cancellation. The call object itself is never touched on these paths.
 */
class DeferredServerListenerTest {

    private final List<String> seen = new CopyOnWriteArrayList<>();
    private final ServerCallHandler<String, String> handler = (call, headers) -> {
        seen.add("startCall");
        return new ServerCall.Listener<>() {
            @Override
            public void onMessage(String message) {
                seen.add("message " + message);
            }

            @Override
            public void onHalfClose() {
                seen.add("halfClose");
            }

            @Override
            public void onReady() {
                seen.add("ready");
            }

            @Override
            public void onCancel() {
                seen.add("cancel");
            }

            @Override
            public void onComplete() {
                seen.add("complete");
            }
        };
    };

    @Test
    void eventsReportedWhileQueuedAreReplayedInOrderAfterTheCallStarts() {
        DeferredServerListener<String> listener = new DeferredServerListener<>(null);
        listener.onReady();

        CompletionStage<Void> slot = listener.start(null, new Metadata(), handler);
        listener.onMessage("m");
        listener.onHalfClose();
        assertThat(slot.toCompletableFuture()).isNotDone();
        listener.onComplete();

        assertThat(seen).containsExactly("startCall", "ready", "message m", "halfClose", "complete");
        assertThat(slot.toCompletableFuture()).isCompletedWithValue(null);
    }

    @Test
    void aGrantThatArrivesAfterTheClientCancelledNeverStartsTheCall() {
        DeferredServerListener<String> listener = new DeferredServerListener<>(null);
        listener.onCancel();
        assertThat(listener.signal().isCancelled()).isTrue();

        CompletionStage<Void> slot = listener.start(null, new Metadata(), handler);

        assertThat(seen).isEmpty();
        assertThat(slot.toCompletableFuture()).as("the slot is released at once").isCompletedWithValue(null);
    }

    @Test
    void aCancelAfterTheStartReachesTheApplicationAndReleasesTheSlotOnce() {
        DeferredServerListener<String> listener = new DeferredServerListener<>(null);
        CompletionStage<Void> slot = listener.start(null, new Metadata(), handler);

        listener.onCancel();
        listener.onComplete(); // a transport never sends both, but a second end must not matter

        assertThat(seen).containsExactly("startCall", "cancel", "complete");
        assertThat(slot.toCompletableFuture()).isCompletedWithValue(null);
    }

    @Test
    void anAbandonedCallDropsWhatTheTransportReports() {
        DeferredServerListener<String> listener = new DeferredServerListener<>(null);
        listener.onReady();
        listener.abandon();
        listener.onMessage("late");
        assertThat(seen).isEmpty();
    }
}
