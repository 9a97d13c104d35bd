package dev.bulwark.redis.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The releases of closed permits, which nobody waits for: each is sent either on its own, by a flush handed to an
 * executor the moment it is added, or, when this instance sends another script first, together with that script
 * (an {@code acquire} carries them in its own arguments, a {@code release} merges them, any other script is sent
 * behind a {@code release} of them). An uncontended caller that closes its permit and acquires again therefore
 * costs Redis one script, not two, and the next acquire no longer waits behind a separate release on the
 * single-threaded server.
 *
 * <h2>Design notes</h2>
 * <p><b>Nothing is delayed by more than a hand-off.</b> The release that makes {@link #pending} non-empty submits a
 * {@link #flush}; a release is written by that flush or by an earlier script, whichever takes it first, so it
 * reaches Redis no later than it would have after one executor hand-off. If the executor refuses, the release is
 * flushed on the closing thread.
 *
 * <p><b>Invariant 1 (every release is sent exactly once).</b> Ids leave {@link #pending} only by
 * {@code getAndSet(null)}, so each is taken by exactly one sender. While {@link #pending} is non-empty a flush is
 * submitted that will run after the release which made it non-empty: the only add that submits is the one that
 * found it empty, and it submits after its push.
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
    private final Sender sender;
    private final Outcomes outcomes;
    private final Runnable flushTask = this::flush;

    ReleaseOutbox(Executor flusher, Sender sender, Outcomes outcomes) {
        this.flusher = flusher;
        this.sender = sender;
        this.outcomes = outcomes;
    }

    /** Queues the release of a closed permit; it is sent within one executor hand-off, or earlier with a script. */
    void release(RemotePermit permit) {
        Node head;
        Node node;
        do {
            head = pending.get();
            node = new Node(permit, head);
        } while (!pending.compareAndSet(head, node));
        if (head == null) {
            try {
                flusher.execute(flushTask);
            } catch (RuntimeException refused) {
                flush();
            }
        }
    }

    /**
     * Sends every pending release now, on the calling thread. Returns at once when nothing is pending (usually: the
     * next acquire took it first), without touching {@link #sending} or the lock, so a flush that lost the race does
     * not make that acquire wait: it takes no ids, so neither invariant concerns it.
     */
    void flush() {
        if (pending.get() == null) {
            return;
        }
        List<RemotePermit> taken;
        CompletableFuture<List<Object>> released = null;
        sending.incrementAndGet();
        order.lock();
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
