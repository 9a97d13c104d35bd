package dev.bulwark.testing;

import dev.bulwark.Scheduler;
import dev.bulwark.Ticker;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A fake clock and the scheduler it drives, as one object for code that takes both: a {@link FakeTicker} and its
 * {@link ManualScheduler} (tasks run, in deadline order, on the thread that calls {@link #advance}). Thread-safe.
 * Shared by the test suites of the modules (bulwark-core's test jar).
 */
public final class ManualTime implements Ticker, Scheduler {

    private final FakeTicker ticker = new FakeTicker();
    private final ManualScheduler scheduler = new ManualScheduler(ticker);

    @Override
    public long read() {
        return ticker.read();
    }

    @Override
    public Cancellable schedule(Runnable task, long delay, TimeUnit unit) {
        return scheduler.schedule(task, delay, unit);
    }

    /** Moves time forward and runs, on this thread, every task that became due. */
    public void advance(Duration duration) {
        scheduler.advance(duration);
    }

    /** The scheduled tasks not yet run or cancelled. */
    public int pendingTasks() {
        return scheduler.pendingTasks();
    }
}
