package dev.bulwark.internal.timer;

import dev.bulwark.Scheduler;
import dev.bulwark.internal.util.VarHandles;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A hashed timing wheel: the one timer behind {@link Scheduler#shared()}, serving every sync timeout, async maximum
 * wait and retry delay of every policy with one daemon thread.
 *
 * <h2>Design notes</h2>
 *
 * <p><b>Layout.</b> Time is cut into ticks of {@link #tickNanos} (1 ms for the shared wheel). A timer due at tick
 * {@code t} lives in bucket {@code t & (buckets - 1)}, as in Netty's {@code HashedWheelTimer}, but with no lap counter:
 * walking a bucket fires the nodes whose deadline has passed and leaves the others for a later lap (a bucket is walked
 * at a tick only once that tick has begun, and a node's due tick begins at or after its deadline); each bucket is a
 * doubly linked list of {@link TimerNode}s owned by the worker thread alone. Scheduling and cancelling are O(1) and
 * never take a lock, so callers never contend with the timer thread the way a {@code ScheduledThreadPoolExecutor}'s
 * locked heap makes them.
 *
 * <p><b>Hand-over.</b> A scheduling thread pushes its node on {@link #pending}, an intrusive Treiber stack (the link
 * is a field of the node: no allocation besides the node itself). A cancelling thread wins the node's state by CAS,
 * drops the node's task at once (so the task and everything it refers to, a waiter and its future say, is
 * unreachable from the wheel from that moment), and pushes the node on {@link #cancelled}, a second intrusive stack,
 * from which the worker unlinks it on its next tick. So a cancelled timer costs at most one tick of its node. An object
 * that needs a timer can be its own node ({@link TimerNode} subclass, {@link #scheduleAfter}), so that a schedule
 * allocates nothing at all; such a node carries its delay, which the worker turns into a deadline from a clock
 * reading taken after it took the node from {@code pending}, so the scheduling thread reads no clock. A
 * {@link RearmableTimer} goes further: one owner re-arms it call after call without the worker in between (a
 * generation in its word, a flag that coalesces its hand-overs to one push a tick; see its design notes); the worker
 * unlinks its earlier filing when it takes it again and drops a filing whose call has ended.
 *
 * <p><b>Invariants.</b>
 * <ol>
 *   <li>A node's {@link TimerNode#state} goes from {@code WAITING} to exactly one of {@code FIRED} (the worker's CAS,
 *       just before it runs the task) or {@code CANCELLED} (the canceller's CAS); the winner alone acts, so a task
 *       runs at most once and never after a successful cancel.</li>
 *   <li>Bucket lists and {@code bucketIndex} are touched by the worker thread only (but for the
 *       {@code -2} that marks a delay, written by {@link #scheduleAfter} before the push publishes the node).</li>
 *   <li>A one-shot node is pushed on {@code pending} once (by {@link #schedule}; a rearmable node once per
 *       hand-over, never while it is still on the stack) and on {@code cancelled} at most once (by the
 *       cancel CAS winner); each stack link field belongs to one stack.</li>
 *   <li>Never early: the worker fires a node only when the wheel's clock has reached its deadline; a node whose
 *       tick has begun but whose deadline has not yet come (a deadline from a reading later than the walk's) is
 *       re-filed one tick later; a node of a later lap stays.</li>
 *   <li>No lap late: a node is filed at its due tick or, if that has passed, at {@code currentTick}, and every tick
 *       from {@code currentTick} on is walked in order, so the walk reaches the node's bucket at its due tick (or at
 *       once). One exception keeps this: when nothing is filed ({@code filed == 0}, checked before what is pending
 *       is filed) the walk jumps {@code currentTick} to the tick that has begun, which it still walks; the ticks it
 *       skips hold no node, so skipping them can neither fire a node early nor pass its due tick.</li>
 * </ol>
 *
 * <p><b>Precision.</b> A task runs no earlier than its deadline and normally within one tick after it; later only
 * when the timer thread itself is not scheduled (an overloaded machine), or behind a slow task of another timer.
 * Tasks run on the timer thread and must be short: they complete futures and wake threads.
 *
 * <p><b>Idling.</b> After {@value #IDLE_AFTER_EMPTY_TICKS} ticks with no timer at all the worker parks without a
 * deadline; the first {@link #schedule} after that unparks it (a flag makes the unpark one volatile read when the
 * worker is awake). Until then it keeps ticking, so a stream of short-lived timers never pays for unparking it. On
 * waking it skips the ticks it slept through (invariant 5) instead of walking them, so a timer scheduled after a day
 * of idling is filed at once, not after a walk of 86 million empty ticks.
 */
public final class TimerWheel implements Scheduler {

    private static final VarHandle PENDING = VarHandles.field(MethodHandles.lookup(), "pending", TimerNode.class);
    private static final VarHandle CANCELLED_STACK =
            VarHandles.field(MethodHandles.lookup(), "cancelled", TimerNode.class);

    /**
     * Empty ticks before the worker parks without a deadline. Short timers cancelled before they are filed (a sync
     * timeout of a call that returns at once) leave the wheel empty at every tick; parking at once would make every
     * next schedule pay an unpark, a system call that costs more than the call itself.
     */
    static final int IDLE_AFTER_EMPTY_TICKS = 1_000;

    private final long tickNanos;
    private final TimerNode[] heads;
    private final int mask;
    private final long origin;
    private final TimeSource time;

    /** Newly scheduled timers, newest first. */
    private volatile TimerNode pending;
    /** Cancelled timers still to be unlinked, newest first. */
    private volatile TimerNode cancelled;
    /** Worker only: the next tick to process. */
    private long currentTick;
    /** Worker only: ticks walked so far, so that tests can see that an idle gap is skipped, not walked. */
    long ticksWalked;
    /** Timers filed in buckets; written by the worker only, volatile so that tests and diagnostics can read it. */
    private volatile long filed;
    private volatile boolean idle;
    private volatile boolean shutdown;
    private volatile Thread worker;

    /** Where the wheel reads time; the shared wheel uses {@link System#nanoTime()}. */
    @FunctionalInterface
    public interface TimeSource {
        /**
         * Returns the time in nanoseconds.
         *
         * @return a monotonic reading
         */
        long nanoTime();
    }

    /**
     * Creates a wheel; nothing runs until {@link #start(String)} or, in tests, {@link #advanceTo(long)}.
     *
     * @param tickNanos the tick, at least 1
     * @param buckets the number of buckets, a power of two
     * @param time the clock
     * @throws IllegalArgumentException when {@code tickNanos} or {@code buckets} is out of range
     */
    public TimerWheel(long tickNanos, int buckets, TimeSource time) {
        if (tickNanos < 1) {
            throw new IllegalArgumentException("tickNanos must be at least 1 but was " + tickNanos);
        }
        if (buckets < 1 || Integer.bitCount(buckets) != 1) {
            throw new IllegalArgumentException("buckets must be a positive power of two but was " + buckets);
        }
        this.tickNanos = tickNanos;
        this.heads = new TimerNode[buckets];
        this.mask = buckets - 1;
        this.time = time;
        this.origin = time.nanoTime();
    }

    /**
     * Starts the daemon worker thread.
     *
     * @param threadName its name
     * @return this wheel
     */
    public TimerWheel start(String threadName) {
        Thread thread = new WorkerThread(this::work, threadName);
        thread.setDaemon(true);
        worker = thread;
        thread.start();
        return this;
    }

    /**
     * Whether the calling thread is the worker of a started wheel: where {@link TimerNode#expire()} runs, and where
     * no user code may run (ask {@link OffTimer#onTimerThread()}). A class test, so that asking costs no field read.
     *
     * @return {@code true} on a wheel's worker thread
     */
    static boolean onWorkerThread() {
        return Thread.currentThread() instanceof WorkerThread;
    }

    /** The worker's thread type, so that {@link #onWorkerThread()} recognises it. */
    private static final class WorkerThread extends Thread {
        WorkerThread(Runnable work, String name) {
            super(work, name);
        }
    }

    @Override
    public Cancellable schedule(Runnable task, long delay, TimeUnit unit) {
        if (task == null) {
            throw new NullPointerException("task");
        }
        if (shutdown) {
            throw new RejectedExecutionException("the timer is shut down");
        }
        long delayNanos = Math.max(0L, unit.toNanos(delay));
        long now = time.nanoTime();
        long deadline = now + delayNanos;
        if (deadline < now) {
            deadline = Long.MAX_VALUE; // overflow: practically never
        }
        Timer timer = new Timer(this, task, deadline);
        pushPending(timer);
        return timer;
    }

    /**
     * Schedules a node whose {@link TimerNode#deadline} holds a delay, without reading the clock: the worker turns the
     * delay into a deadline from its own clock reading, taken after it took the node from the pending stack, so the
     * node is never early (that reading comes after this push). It is late by the time the node waits on the pending
     * stack, at most one tick while the worker is awake (it is woken at once when idle), so it expires normally
     * within two ticks after its delay.
     *
     * @param node a new node of this wheel, its deadline field the delay in nanoseconds (not negative)
     * @throws RejectedExecutionException when the wheel is shut down
     */
    public void scheduleAfter(TimerNode node) {
        checkRunning();
        node.bucketIndex = -2; // marks the deadline as a delay still to be converted (worker reads it after the push)
        pushPending(node);
    }

    /**
     * Schedules a node made without a wheel or delay ({@link TimerNode#TimerNode()}) to expire {@code delayNanos}
     * from now, as {@link #scheduleAfter(TimerNode)} does: never early, normally within two ticks late, no clock read
     * here.
     *
     * @param node a node never scheduled before
     * @param delayNanos the delay, not negative
     * @throws RejectedExecutionException when the wheel is shut down
     */
    public void scheduleAfter(TimerNode node, long delayNanos) {
        node.wheel = this;
        node.deadline = Math.max(0L, delayNanos);
        scheduleAfter(node);
    }

    /** Throws when the wheel is shut down. */
    void checkRunning() {
        if (shutdown) {
            throw new RejectedExecutionException("the timer is shut down");
        }
    }

    /** Pushes a node on the pending stack; its {@code nextPending} must be free (invariant 3). */
    void pushPending(TimerNode node) {
        TimerNode head;
        do {
            head = pending;
            node.nextPending = head;
        } while (!PENDING.compareAndSet(this, head, node));
        if (idle) {
            wake();
        }
    }

    private void wake() {
        Thread thread = worker;
        if (thread != null) {
            java.util.concurrent.locks.LockSupport.unpark(thread);
        }
    }

    /** Stops the worker; timers not yet fired never run. For tests and shutdown hooks. */
    public void shutdown() {
        shutdown = true;
        wake();
    }

    /**
     * Returns how many timers are filed in buckets (worker's view; for tests and diagnostics).
     *
     * @return the count
     */
    public long filedCount() {
        return filed;
    }

    private void work() {
        int emptyTicks = 0;
        while (!shutdown) {
            long now = time.nanoTime();
            advanceTo(now);
            if (filed == 0 && pending == null && ++emptyTicks > IDLE_AFTER_EMPTY_TICKS) {
                idle = true;
                if (pending == null && cancelled == null && !shutdown) {
                    java.util.concurrent.locks.LockSupport.park(this);
                }
                idle = false;
                emptyTicks = 0;
                continue;
            }
            if (filed != 0) {
                emptyTicks = 0;
            }
            long nextTickAt = origin + currentTick * tickNanos;
            long sleep = nextTickAt - time.nanoTime();
            if (sleep > 0) {
                java.util.concurrent.locks.LockSupport.parkNanos(this, sleep);
            }
        }
    }

    /**
     * Processes every tick up to {@code now}: files new timers, unlinks cancelled ones and fires those due. Called by
     * the worker thread, or by a test driving a wheel that was never started (never both).
     *
     * @param now the wheel clock's reading
     */
    public void advanceTo(long now) {
        long lastTick = (now - origin) / tickNanos; // ticks that have begun
        if (filed == 0 && currentTick < lastTick) {
            // Nothing is filed, so the ticks before the one that has begun hold nothing: skip them (invariant 5)
            // instead of walking them one by one, 86 million after a day parked idle, a second on this thread
            // before the first new timer is filed. Before the transfer below, which files at currentTick or later.
            currentTick = lastTick;
        }
        transferPending();
        unlinkCancelled();
        while (currentTick <= lastTick) {
            ticksWalked++;
            int index = (int) (currentTick & mask);
            TimerNode node = heads[index];
            while (node != null) {
                TimerNode next = node.next;
                if (node instanceof RearmableTimer && !((RearmableTimer) node).filingIsCurrent()) {
                    unlink(node); // the call it was filed for ended: nothing to fire, ever (invariant 1 there)
                } else if (node.deadline <= now) {
                    unlink(node);
                    if (node instanceof RearmableTimer) {
                        ((RearmableTimer) node).fireFiled();
                    } else {
                        node.fire();
                    }
                } else if (dueTick(node.deadline) <= currentTick) {
                    // Due at this tick by a clock reading later than now (taken while filing): one tick later, so
                    // it is never early and not a lap late. Otherwise it waits for a later lap.
                    unlink(node);
                    file(node, currentTick + 1);
                }
                node = next;
            }
            currentTick++;
            transferPending();
            unlinkCancelled();
        }
    }

    private void transferPending() {
        TimerNode node = (TimerNode) PENDING.getAndSet(this, null);
        long takenAt = 0L;
        boolean read = false;
        while (node != null) {
            TimerNode next = node.nextPending;
            node.nextPending = null;
            if (node instanceof RearmableTimer) {
                // Read its link before this: once transferred() clears its flag, its owner may push it again.
                RearmableTimer rearmable = (RearmableTimer) node;
                if (rearmable.bucketIndex >= 0) {
                    unlink(rearmable); // filed for an earlier call, or earlier for this one: filed afresh below
                }
                if (rearmable.transferred(time)) {
                    file(rearmable, Math.max(dueTick(rearmable.deadline), currentTick));
                }
                node = next;
                continue;
            }
            if (node.bucketIndex == -2) {
                // A delay (scheduleAfter): the deadline counts from a reading taken after the getAndSet above.
                if (!read) {
                    takenAt = time.nanoTime();
                    read = true;
                }
                long due = takenAt + node.deadline;
                node.deadline = due < takenAt ? Long.MAX_VALUE : due;
                node.bucketIndex = -1;
            }
            if (node.state == TimerNode.WAITING) {
                file(node, Math.max(dueTick(node.deadline), currentTick));
            }
            node = next;
        }
    }

    /**
     * The first tick that begins at or after {@code deadline}. A deadline so far ahead that its distance from the
     * origin overflows (a delay that saturated at {@link Long#MAX_VALUE} while the clock reads negative) saturates
     * too, so such a node waits in its bucket for a lap like any far timer instead of being re-filed every tick.
     */
    private long dueTick(long deadline) {
        long span = deadline - origin;
        if (((deadline ^ origin) & (deadline ^ span)) < 0) { // the subtraction overflowed (Math.subtractExact's test)
            return deadline > origin ? Long.MAX_VALUE / 2 : Long.MIN_VALUE / 2;
        }
        long ticks = span / tickNanos;
        return span > 0 && span % tickNanos != 0 ? ticks + 1 : ticks; // ceiling, without adding before dividing
    }

    private void file(TimerNode node, long tick) {
        int index = (int) (tick & mask);
        node.bucketIndex = index;
        TimerNode head = heads[index];
        node.previous = null;
        node.next = head;
        if (head != null) {
            head.previous = node;
        }
        heads[index] = node;
        filed++;
    }

    private void unlinkCancelled() {
        TimerNode node = (TimerNode) CANCELLED_STACK.getAndSet(this, null);
        while (node != null) {
            TimerNode next = node.nextCancelled;
            node.nextCancelled = null;
            if (node.bucketIndex >= 0) {
                unlink(node);
            }
            node = next;
        }
    }

    private void unlink(TimerNode node) {
        int index = node.bucketIndex;
        TimerNode before = node.previous;
        TimerNode after = node.next;
        if (before == null) {
            heads[index] = after;
        } else {
            before.next = after;
        }
        if (after != null) {
            after.previous = before;
        }
        node.previous = null;
        node.next = null;
        node.bucketIndex = -1;
        filed--;
    }

    void pushCancelled(TimerNode node) {
        TimerNode head;
        do {
            head = cancelled;
            node.nextCancelled = head;
        } while (!CANCELLED_STACK.compareAndSet(this, head, node));
    }

    @Override
    public String toString() {
        return "TimerWheel[tick " + tickNanos + " ns, " + heads.length + " buckets]";
    }
}
