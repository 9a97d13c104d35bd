package dev.bulwark.spring.internal;

import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.CancellationSignal;
import dev.bulwark.Priority;
import dev.bulwark.Rejection;
import dev.bulwark.internal.util.Stages;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * One servlet request's way through a shedding route's bulkhead, as a state machine changed only by
 * compare-and-set, so that the grant, the refusal, the servlet container's timeout or error, and the request's own
 * threads agree on exactly one outcome.
 *
 * <h2>Design notes</h2>
 * <pre>
 *   WAITING ──grant──▶ GRANTED ──filter or dispatch──▶ RUNNING
 *      │  └──refusal──▶ REFUSED ──filter or dispatch──▶ ABANDONED (refusal written)
 *      └──filter suspends──▶ SUSPENDED ──grant / refusal (+ dispatch)──▶ GRANTED / REFUSED
 *   SUSPENDED, GRANTED, REFUSED ──async timeout / error / complete──▶ ABANDONED
 *   WAITING ──interrupt of the parked request thread (no async support)──▶ ABANDONED (refusal written)
 * </pre>
 * <ul>
 *   <li><b>Invariant 1 (one outcome).</b> Exactly one party moves the state out of GRANTED or REFUSED, so the
 *       application's chain runs at most once and a refusal is written at most once, and never both.</li>
 *   <li><b>Invariant 2 (no dispatch before suspension).</b> {@link AsyncContext#dispatch()} is called only by the
 *       party that moved the state from SUSPENDED, or by the request thread whose move to SUSPENDED failed because
 *       a decision came first; {@link #asyncContext} is written before the move to SUSPENDED (volatile), so every
 *       dispatching party sees it.</li>
 *   <li><b>Invariant 3 (release exactly once).</b> The slot is released by completing {@link #done}, which is
 *       idempotent: when the response is done, or at once when a grant finds the request ABANDONED or the
 *       container gives up on a GRANTED request.</li>
 * </ul>
 * A request whose container cannot suspend it (async not supported) parks its thread until WAITING is left: the
 * deciding party unparks {@link #waiter} after its move (both fields volatile, so either the waiter sees the new
 * state or the decider sees the waiter).
 */
final class ServletAdmission implements AsyncListener {

    static final int WAITING = 0;
    static final int SUSPENDED = 1;
    static final int GRANTED = 2;
    static final int REFUSED = 3;
    static final int RUNNING = 4;
    static final int ABANDONED = 5;

    final SheddingRoute route;
    final String key;
    final Priority priority;
    final String instance;
    final long startNanos = System.nanoTime();
    final CancellationSignal signal = CancellationSignal.create();
    /** Completing it releases the slot (once granted). */
    final CompletableFuture<Void> done = new CompletableFuture<>();
    private final AtomicInteger state = new AtomicInteger(WAITING);
    /** Written by the request thread before its move to SUSPENDED. */
    private volatile AsyncContext asyncContext;
    /** Written before the move to REFUSED. */
    private volatile Rejection rejection;
    /** The request thread parked in the blocking fallback, or {@code null}. */
    private volatile Thread waiter;
    private final AtCall atCall = new AtCall();

    ServletAdmission(SheddingRoute route, String key, Priority priority, String instance) {
        this.route = route;
        this.key = key;
        this.priority = priority;
        this.instance = instance;
    }

    int state() {
        return state.get();
    }

    boolean claim(int expected, int next) {
        return state.compareAndSet(expected, next);
    }

    Rejection rejection() {
        return rejection;
    }

    /**
     * Asks the route's bulkhead for a slot, with {@link #granted()} as the work and {@link #ended} told of the
     * outcome. Called once, by the request thread.
     */
    void admit() {
        atCall.admit(route.limiter(), key, priority, this::granted, signal).whenComplete(this::ended);
    }

    /**
     * Returns whether the bulkhead decided the admission at the call ({@link AtCall}), granted or refused: the request
     * goes on on its own thread. Otherwise it waited, even if its grant or refusal is already known, and is suspended
     * like any waiting request. Request thread only, after {@link #admit()}.
     *
     * @return {@code true} when decided at the call
     */
    boolean decidedAtCall() {
        if (atCall.granted()) {
            return true;
        }
        return state.get() == REFUSED && AtCall.refusedAtCall(rejection); // written before the move to REFUSED
    }

    /** The work the bulkhead starts on a grant: records it and returns the stage whose completion releases. */
    CompletionStage<Void> granted() {
        atCall.started();
        for (;;) {
            int current = state.get();
            if (current == WAITING && state.compareAndSet(WAITING, GRANTED)) {
                wakeWaiter();
                return done;
            }
            if (current == SUSPENDED && state.compareAndSet(SUSPENDED, GRANTED)) {
                asyncContext.dispatch();
                return done;
            }
            if (current == ABANDONED) {
                // The container gave up on the request while the grant was on its way: hand the slot back.
                done.complete(null);
                return done;
            }
            if (current != WAITING && current != SUSPENDED) {
                throw new IllegalStateException("granted twice: state " + current);
            }
        }
    }

    /** Told of the admission's end: a refusal moves the state; a cancellation was ours; success is the release. */
    void ended(Void ignored, Throwable failure) {
        Throwable cause = Stages.unwrap(failure);
        if (!(cause instanceof BulkheadRejectedException refused)) {
            return;
        }
        rejection = refused.rejection();
        for (;;) {
            int current = state.get();
            if (current == WAITING && state.compareAndSet(WAITING, REFUSED)) {
                wakeWaiter();
                return;
            }
            if (current == SUSPENDED && state.compareAndSet(SUSPENDED, REFUSED)) {
                asyncContext.dispatch();
                return;
            }
            if (current != WAITING && current != SUSPENDED) {
                return; // ABANDONED: the container already answered
            }
        }
    }

    /**
     * Suspends the request while it waits. Called by the request thread, in state WAITING or later.
     *
     * @param context the started async context, with this admission as its listener
     */
    void suspend(AsyncContext context) {
        asyncContext = context;
        if (!state.compareAndSet(WAITING, SUSPENDED)) {
            // A decision came between the check and the suspension: let the async dispatch act on it.
            context.dispatch();
        }
    }

    /**
     * Parks the request thread until the state leaves WAITING (servlet containers without async support).
     *
     * @return {@code null} once the state left WAITING (act on it), or, when an interrupt of the thread came
     *     first, the refusal to answer the abandoned request with: it has left the queue, and the thread's
     *     interrupt is <em>cleared</em>, for the caller to restore once the answer is written (a container's
     *     blocking write may fail on a pending interrupt)
     */
    Rejection awaitDecision() {
        waiter = Thread.currentThread();
        while (state.get() == WAITING) {
            LockSupport.park(this);
            if (Thread.interrupted()) {
                if (state.compareAndSet(WAITING, ABANDONED)) {
                    signal.cancel(); // leaves the queue at once; a grant racing this finds ABANDONED
                    done.complete(null);
                    return route.limiter().timedOut(key, priority, Duration.ofNanos(System.nanoTime() - startNanos));
                }
                // Decided meanwhile: the request goes on, and the interrupt stays the application's.
                Thread.currentThread().interrupt();
            }
        }
        return null;
    }

    private void wakeWaiter() {
        Thread parked = waiter;
        if (parked != null) {
            LockSupport.unpark(parked);
        }
    }

    @Override
    public void onTimeout(AsyncEvent event) throws IOException {
        Rejection answer = abandon();
        if (answer != null) {
            ServletSheddingFilter.writeRefusal((HttpServletResponse) event.getAsyncContext().getResponse(),
                    Refusal.of(route, key, answer, instance));
            event.getAsyncContext().complete();
        }
    }

    @Override
    public void onError(AsyncEvent event) {
        if (abandon() != null) {
            event.getAsyncContext().complete();
        }
    }

    @Override
    public void onComplete(AsyncEvent event) {
        abandon();
    }

    @Override
    public void onStartAsync(AsyncEvent event) {
        // The application's own async cycle: its completion is watched by the filter's release listener.
    }

    /**
     * Gives up on a request that is not running: leaves the queue, or hands back a slot granted meanwhile.
     *
     * @return what to answer (a refusal, or a synthesized wait timeout), or {@code null} when the request is
     *     running or already answered
     */
    private Rejection abandon() {
        for (;;) {
            int current = state.get();
            if (current == WAITING || current == SUSPENDED || current == GRANTED) {
                if (state.compareAndSet(current, ABANDONED)) {
                    if (current != GRANTED) {
                        signal.cancel(); // leaves the queue at once; a grant racing this finds ABANDONED
                    }
                    done.complete(null);
                    return route.limiter().timedOut(key, priority, Duration.ofNanos(System.nanoTime() - startNanos));
                }
            } else if (current == REFUSED) {
                if (state.compareAndSet(REFUSED, ABANDONED)) {
                    return rejection;
                }
            } else {
                return null;
            }
        }
    }
}
