package dev.bulwark.grpc.internal;

import io.grpc.Context;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A gate in front of a gRPC call or listener that is not thread-safe: actions submitted before the gate opens are
 * held in arrival order; once it opens, the first action (the one that creates the real call or listener) runs, then
 * the held ones, then every later one, one at a time and in submission order, on whichever submitting thread finds
 * the drain idle. No thread is parked and none is created: a waiting call is this queue, nothing more.
 *
 * <p><b>Invariants.</b> (1) Actions run one at a time: only the thread that moves {@code pending} from 0 to 1 runs
 * actions, and it keeps running until it brings {@code pending} back to 0 (the "work in progress" counter of JCTools'
 * and RxJava's drain loops). (2) No action is stranded after opening: {@link #submit} enqueues <em>then</em> reads
 * {@code open}; {@link #open} writes {@code open} <em>then</em> drains; both are volatile accesses, so at least one
 * of the two sees the other and drains the action. (3) The first action runs before every other: it is published
 * before {@code open} (a volatile write), every drainer has read {@code open == true} before draining, and the
 * drainer runs and clears it before polling the queue. (4) Order: the queue is FIFO and has a single consumer at a
 * time (the drainer), so actions run in the order their {@code add} linearized.
 *
 * <p>An action that throws does not stop the drain: its failure goes to the {@code failures} handler.
 *
 * <p><b>Context.</b> Every action runs with the gRPC {@link Context} of the call the drain belongs to attached,
 * whichever thread drains: the first action usually runs on the thread that freed the slot, inside another call's
 * callback with that call's Context attached, and an application listener or a real call created there would take
 * the other call's deadline and cancellation for its own (gRPC binds a call to {@link Context#current()}).
 */
public final class OrderedDrain {

    private final Queue<Runnable> actions = new ConcurrentLinkedQueue<>();
    /** Work in progress: submissions not yet accounted for by a drainer; see invariant (1). */
    private final AtomicInteger pending = new AtomicInteger();
    private final java.util.function.Consumer<Throwable> failures;
    private final Context context;
    private volatile boolean open;
    private volatile boolean discarded;
    /** Written before {@link #open}, read and cleared only by the drainer; see invariant (3). */
    private volatile Runnable first;

    /**
     * Creates a closed gate whose actions run in {@code context}.
     *
     * @param failures told about an action that threw; must not throw itself
     * @param context the Context of the call the actions belong to (captured when the call started)
     */
    public OrderedDrain(java.util.function.Consumer<Throwable> failures, Context context) {
        this.failures = failures;
        this.context = context;
    }

    /**
     * Runs {@code action} now (on this thread, unless another thread is draining, which then runs it) if the gate is
     * open, or holds it until the gate opens. Does nothing once {@linkplain #discard() discarded}.
     *
     * @param action what to run
     */
    public void submit(Runnable action) {
        if (discarded) {
            return;
        }
        actions.add(action);
        if (open) {
            drain();
        }
    }

    /**
     * Opens the gate: runs {@code firstAction}, then the held actions, then later ones as they come.
     *
     * @param firstAction runs before every other action
     */
    public void open(Runnable firstAction) {
        first = firstAction;
        open = true;
        drain();
    }

    /** Drops the held actions and every later one: the gate will never open (the call was refused or cancelled). */
    public void discard() {
        discarded = true;
        actions.clear();
    }

    /** Whether the gate has opened. */
    public boolean isOpen() {
        return open;
    }

    private void drain() {
        if (pending.getAndIncrement() != 0) {
            return;
        }
        int missed = 1;
        Context previous = context.attach();
        try {
            do {
                Runnable head = first;
                if (head != null) {
                    first = null;
                    run(head);
                }
                Runnable action;
                while ((action = actions.poll()) != null) {
                    run(action);
                }
                missed = pending.addAndGet(-missed);
            } while (missed != 0);
        } finally {
            context.detach(previous);
        }
    }

    private void run(Runnable action) {
        try {
            action.run();
        } catch (Throwable failure) {
            failures.accept(failure);
        }
    }
}
