package dev.bulwark.cli.internal.sim;

import dev.bulwark.Scheduler;
import dev.bulwark.Ticker;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;

/**
 * A clock and a scheduler that move only when the virtual-time event loop says so: the {@link Ticker} and the
 * {@link Scheduler} given to the real bulkhead, timeout and retry in a virtual-time run.
 *
 * <p>Tasks run in order of their due time, and tasks due at the same time in the order they were scheduled (a
 * sequence number breaks ties), so a run is a pure function of its seed. A task scheduled with a zero or negative
 * delay runs at the current time, after the tasks already due then. Single-threaded: only the event loop's thread
 * reads, schedules and advances it (the bulkhead calls {@link #schedule} from the same thread, inside the events
 * the loop runs). Used by the virtual-time simulation and by {@code bulwark compare}.
 */
public final class VirtualClock implements Ticker, Scheduler {

    private final PriorityQueue<Task> tasks = new PriorityQueue<>();
    private long now;
    private long sequence;

    /** Creates a clock reading 0 with nothing scheduled. */
    public VirtualClock() {
    }

    @Override
    public long read() {
        return now;
    }

    /**
     * Returns when the earliest task not yet run is due.
     *
     * @return a time, or {@link Long#MAX_VALUE} when no task is pending
     */
    public long nextTaskAt() {
        dropCancelledHead();
        Task first = tasks.peek();
        return first == null ? Long.MAX_VALUE : first.at;
    }

    /**
     * Moves the clock to {@code at} without running anything (the loop does so before finishing downstream calls
     * due then). Time never goes back: an earlier {@code at} is ignored.
     *
     * @param at the new time
     */
    public void moveTo(long at) {
        now = Math.max(now, at);
    }

    /**
     * Moves the clock to {@code at} and runs every task due by then, including those that tasks schedule for a
     * time up to {@code at}.
     *
     * @param at the new time
     */
    public void runDueBy(long at) {
        moveTo(at);
        for (Task task = tasks.peek(); task != null && task.at <= now; task = tasks.peek()) {
            tasks.poll();
            if (!task.cancelled) {
                task.cancelled = true; // ran: a late cancel is a no-op
                task.runnable.run();
            }
        }
    }

    @Override
    public Cancellable schedule(Runnable task, long delay, TimeUnit unit) {
        long delayNanos = Math.max(0L, unit.toNanos(delay));
        Task scheduled = new Task(delayNanos >= Long.MAX_VALUE - now ? Long.MAX_VALUE : now + delayNanos, sequence++,
                task);
        tasks.add(scheduled);
        return scheduled;
    }

    private void dropCancelledHead() {
        while (!tasks.isEmpty() && tasks.peek().cancelled) {
            tasks.poll();
        }
    }

    private static final class Task implements Comparable<Task>, Cancellable {
        final long at;
        final long sequence;
        final Runnable runnable;
        boolean cancelled;

        Task(long at, long sequence, Runnable runnable) {
            this.at = at;
            this.sequence = sequence;
            this.runnable = runnable;
        }

        @Override
        public void cancel() {
            cancelled = true;
        }

        @Override
        public int compareTo(Task other) {
            int byTime = Long.compare(at, other.at);
            return byTime != 0 ? byTime : Long.compare(sequence, other.sequence);
        }
    }
}
