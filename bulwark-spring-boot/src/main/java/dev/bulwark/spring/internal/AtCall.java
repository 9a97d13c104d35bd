package dev.bulwark.spring.internal;

import dev.bulwark.CancellationSignal;
import dev.bulwark.Priority;
import dev.bulwark.Rejection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * Whether the bulkhead decided one request's admission at the call ("at once") or after the request waited in its
 * queue, as the bulkhead's own outcome says, for the filters that continue differently in the two cases.
 *
 * <h2>Design notes</h2>
 * Whether the grant or refusal is already known when {@code callAsync} returns says nothing: a request that joined
 * the queue can be granted (a slot freed on another thread) or refused (an eviction) in the instant between joining
 * and the return, and it waited all the same. Taking "known by then" for "at once" let such a request go on as if
 * admitted at once, about 3 times in 160 in a test that frees the slot just after the request queues.
 * <ul>
 *   <li>A grant is at once when the bulkhead starts the work on the calling thread inside {@code callAsync}. A
 *       {@link RouteLimiter.Single} route's bulkhead does that only for a slot free at the call
 *       ({@link dev.bulwark.Bulkhead#callAsync}'s contract); the in-process one starts a waiter's work on the thread
 *       that freed the slot, or after the call on the caller's own thread when that thread is already starting
 *       other grants. (A {@link RouteLimiter.Partitioned} route's bulkhead also starts it inside the call when the
 *       grant of a request that just queued lands before the bulkhead itself looks at its wait's outcome: that
 *       request is taken as at once, as {@link RouteLimiter#admit} says; only bulwark-core could tell it
 *       apart.)</li>
 *   <li>A refusal is at once when it is known when {@code callAsync} returns and its reason does not say that the
 *       request waited: {@code WAIT_TIMEOUT} and {@code EVICTED} always come from the queue, even that early. The
 *       bulkhead does not say where another refusal that lands in that instant came from (a drain's
 *       {@code CLOSED}, say); it is taken as at once.</li>
 * </ul>
 *
 * <p>Confined to the request's thread, except {@link #started()}, which any thread may call: {@link #calling} is
 * written only by the calling thread, with itself or {@code null}, so no other thread can read its own identity
 * there, and {@link #granted} is written only by a thread that did; plain fields are enough.
 */
final class AtCall {

    private Thread calling;
    private boolean granted;

    /**
     * Asks the route's bulkhead for a slot, noting whether it grants one inside the call.
     *
     * @param limiter the route's bulkhead
     * @param key the request's partition key
     * @param priority the request's priority
     * @param work must call {@link #started()} first; see {@link RouteLimiter#admit}
     * @param signal cancels the wait
     * @return the outcome, as {@link RouteLimiter#admit} returns it
     */
    CompletableFuture<Void> admit(RouteLimiter limiter, String key, Priority priority,
                                  Supplier<? extends CompletionStage<Void>> work, CancellationSignal signal) {
        calling = Thread.currentThread();
        try {
            return limiter.admit(key, priority, work, signal);
        } finally {
            calling = null;
        }
    }

    /** Told by the work that the bulkhead started it: at once if on the calling thread, inside the call. */
    void started() {
        if (calling == Thread.currentThread()) {
            granted = true;
        }
    }

    /**
     * Returns whether the bulkhead granted the slot at the call. Calling thread only, after {@link #admit}.
     *
     * @return {@code true} for a slot granted inside the call
     */
    boolean granted() {
        return granted;
    }

    /**
     * Returns whether a refusal known when {@code callAsync} returned counts as one at the call.
     *
     * @param refusal the refusal
     * @return {@code false} when its reason says that the request waited in the queue
     */
    static boolean refusedAtCall(Rejection refusal) {
        Rejection.Reason reason = refusal.reason();
        return reason != Rejection.Reason.WAIT_TIMEOUT && reason != Rejection.Reason.EVICTED;
    }
}
