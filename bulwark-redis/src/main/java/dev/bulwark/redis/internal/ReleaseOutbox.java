package dev.bulwark.redis.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The releases of closed permits, which nobody waits for: each is sent either on its own, by a flush handed to the
 * command connection's I/O event loop (see {@link ReleaseFlusher}) the moment it is added, or, when this instance
 * sends another script first, together with that script (an {@code acquire} carries them in its own arguments, a
 * {@code release} merges them, any other script is sent behind a {@code release} of them). An uncontended caller that
 * closes its permit and acquires again therefore costs Redis one script, not two, and the next acquire no longer waits
 * behind a separate release on the single-threaded server.
 *
 * <h2>Design notes</h2>
 * <p><b>Nothing is delayed by more than a hand-off.</b> The release that makes {@link #pending} non-empty hands a
 * {@link #flushWithoutWaiting} to the flusher (the command connection's I/O event loop, see
 * {@link ReleaseFlusher}); a release is written by that flush or by an earlier script, whichever takes it first,
 * so it reaches Redis no later than it would have after one hand-off. If the flusher refuses, the release is
 * flushed on the closing thread.
 *
 * <p><b>The hand-off never waits.</b> The flusher may be an event loop, which must never block: the handed-off
 * flush takes {@link #order} only by {@code tryLock}. When another sender holds it and an id is still pending
 * afterwards, it hands a waiting {@link #flush} to the executor that may wait, which then sends it (or finds it
 * taken). Either way one flush that runs after the push is still coming, so invariant 1 holds.
 *
 * <p><b>Invariant 1 (every release is sent exactly once).</b> Ids leave {@link #pending} only by
 * {@code getAndSet(null)}, so each is taken by exactly one sender. While {@link #pending} is non-empty a flush is
 * submitted that will run after the release which made it non-empty: the only add that submits is the one that
 * found it empty, and it submits after its push; a handed-off flush that cannot take the lock submits a waiting
 * one before it returns, unless it sees nothing pending any more (then every id it was submitted for has been
 * taken, and each later push submits its own flush).
 *
 * <p><b>Invariant 2 (a release is executed before every script this instance sends after it).</b> Formally: if
 * the {@link #release} of a permit happens-before the {@link #run} of a script, Redis executes the release no
 * later than that script, as it did when each release was written to the connection at once. Every sender that
 * takes ids does so holding {@link #order} and writes them before unlocking, with {@link #sending} raised from
 * before it takes until after it wrote. A script finds the ids either still pending (it takes them under the lock
 * and sends them before or with itself) or already taken; then their sender raised {@link #sending} before taking
 * them, so the script sees {@code sending > 0} (and waits for the lock, hence for that write) unless the write is
 * done. Only a script that sees no pending id and nobody sending skips the lock: nothing it must follow is
 * unwritten. Commands on one connection execute in the order written (see {@link ScriptRunner} for the one
 * exception, a re-send after {@code NOSCRIPT}).
 *
 * <p><b>Lock.</b> {@link #order} is held only while commands are handed to the client, which never blocks with
 * the bulkhead's client options (a disconnected client rejects at once); reply callbacks, which may call
 * listeners, are attached after it is released. A {@link ReentrantLock} never pins a virtual thread.
 *
 * <p>Thread-safe.
 */
final class ReleaseOutbox {

    /** The acquire script's reply fields before the outcomes of the releases it carried. */
    static final int ACQUIRE_REPLY_FIELDS = 6;
    /** The acquire script's own arguments (from {@code ARGV[2]}) before the ids it releases first. */
    static final int ACQUIRE_ARGUMENTS = 4;

    /** Sends one script on the command connection, in call order. */
    interface Sender {
        CompletableFuture<List<Object>> send(LuaScripts.Script script, String[] arguments);
    }

    /** Told the outcome of sent releases: per permit, the reply element at {@code offset + i}, or the failure. */
    interface Outcomes {
        void settled(List<RemotePermit> permits, List<Object> reply, Throwable failure, int offset);
    }

    private record Node(RemotePermit permit, Node next) {
    }

    /** Releases not yet taken by a sender, newest first. */
    private final AtomicReference<Node> pending = new AtomicReference<>();
    /** Senders between taking ids and having written them (see invariant 2). */
    private final AtomicInteger sending = new AtomicInteger();
    private final ReentrantLock order = new ReentrantLock();
    private final Executor flusher;
    private final Executor mayWait;
    private final Sender sender;
    private final Outcomes outcomes;
    private final Runnable handedOffFlush = this::flushWithoutWaiting;
    private final Runnable waitingFlush = this::flush;

    /**
     * @param flusher where a release's flush is handed; what it runs never blocks (it may be an I/O event loop)
     * @param mayWait where a handed-off flush that found another sender holding the lock goes to wait for it
     */
    ReleaseOutbox(Executor flusher, Executor mayWait, Sender sender, Outcomes outcomes) {
        this.flusher = flusher;
        this.mayWait = mayWait;
        this.sender = sender;
        this.outcomes = outcomes;
    }

    /** Queues the release of a closed permit; it is sent within one hand-off, or earlier with a script. */
    void release(RemotePermit permit) {
        Node head;
        Node node;
        do {
            head = pending.get();
            node = new Node(permit, head);
        } while (!pending.compareAndSet(head, node));
        if (head == null) {
            try {
                flusher.execute(handedOffFlush);
            } catch (RuntimeException refused) {
                flush();
            }
        }
    }

    /**
     * The handed-off flush: sends every pending release now unless another sender holds the lock, never waiting
     * for it, so that it may run on an I/O event loop (see the notes on the hand-off).
     */
    void flushWithoutWaiting() {
        if (pending.get() == null) {
            return;
        }
        sending.incrementAndGet();
        if (order.tryLock()) {
            sendPendingAndUnlock();
            return;
        }
        sending.decrementAndGet();
        // The holder takes whatever is pending when it gets there; what it missed needs a flush that waits.
        if (pending.get() != null) {
            try {
                mayWait.execute(waitingFlush);
            } catch (RuntimeException refused) {
                flush(); // the executors are gone: the lock is held only while a command is handed over
            }
        }
    }

    /**
     * Sends every pending release now, on the calling thread, waiting for the lock if another sender holds it.
     * Returns at once when nothing is pending (usually: the next acquire took it first), without touching
     * {@link #sending} or the lock, so a flush that lost the race does not make that acquire wait: it takes no
     * ids, so neither invariant concerns it.
     */
    void flush() {
        if (pending.get() == null) {
            return;
        }
        sending.incrementAndGet();
        order.lock();
        sendPendingAndUnlock();
    }

    /** With {@link #order} held and {@link #sending} raised: takes and writes what is pending, then unlocks. */
    private void sendPendingAndUnlock() {
        List<RemotePermit> taken;
        CompletableFuture<List<Object>> released = null;
        try {
            taken = take();
            if (!taken.isEmpty()) {
                released = sender.send(LuaScripts.RELEASE, ids(taken, new String[0]));
            }
        } finally {
            order.unlock();
            sending.decrementAndGet();
        }
        if (released != null) {
            released.whenComplete((reply, failure) -> outcomes.settled(taken, reply, failure, 0));
        }
    }

    /** Sends a script behind (or together with) every release queued before it. */
    CompletableFuture<List<Object>> run(LuaScripts.Script script, String[] arguments) {
        if (pending.get() == null && sending.get() == 0) {
            return sender.send(script, arguments);
        }
        List<RemotePermit> taken;
        CompletableFuture<List<Object>> reply;
        CompletableFuture<List<Object>> released = null;
        int offset = 0;
        sending.incrementAndGet();
        order.lock();
        try {
            taken = take();
            if (taken.isEmpty()) {
                reply = sender.send(script, arguments);
            } else if (script == LuaScripts.ACQUIRE && arguments.length == ACQUIRE_ARGUMENTS) {
                reply = sender.send(script, ids(taken, arguments));
                offset = ACQUIRE_REPLY_FIELDS;
            } else if (script == LuaScripts.RELEASE) {
                reply = sender.send(script, ids(taken, arguments));
                offset = arguments.length;
            } else {
                released = sender.send(LuaScripts.RELEASE, ids(taken, new String[0]));
                reply = sender.send(script, arguments);
            }
        } finally {
            order.unlock();
            sending.decrementAndGet();
        }
        if (!taken.isEmpty()) {
            int at = offset;
            (released != null ? released : reply).whenComplete((r, failure) -> outcomes.settled(taken, r, failure, at));
        }
        return reply;
    }

    /** Takes every pending release, oldest first. */
    private List<RemotePermit> take() {
        Node node = pending.getAndSet(null);
        if (node == null) {
            return List.of();
        }
        List<RemotePermit> taken = new ArrayList<>();
        for (; node != null; node = node.next) {
            taken.add(node.permit);
        }
        java.util.Collections.reverse(taken);
        return taken;
    }

    /** The arguments followed by the ids of the permits. */
    private static String[] ids(List<RemotePermit> permits, String[] before) {
        String[] all = new String[before.length + permits.size()];
        System.arraycopy(before, 0, all, 0, before.length);
        for (int i = 0; i < permits.size(); i++) {
            all[before.length + i] = permits.get(i).id;
        }
        return all;
    }
}
