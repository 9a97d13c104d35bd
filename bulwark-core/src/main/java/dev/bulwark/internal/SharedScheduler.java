package dev.bulwark.internal;

import dev.bulwark.Scheduler;
import dev.bulwark.internal.timer.TimerWheel;
import java.util.concurrent.TimeUnit;

/**
 * The process-wide timer behind {@link Scheduler#shared()}: one {@link TimerWheel} with one daemon thread,
 * {@code bulwark-timer}, for every timed wait, timeout and delayed retry of every policy, so that 100 000 waiting
 * calls cost 100 000 small nodes and no threads. Ticks of 1 ms over 512 buckets: a task runs no earlier than its
 * deadline and normally within 1 ms after it. Scheduling and cancelling take no lock; a cancelled task is released
 * at once and its node unlinked on the next tick.
 */
public final class SharedScheduler implements Scheduler {

    /** The one instance; its wheel and thread are created on first use. */
    public static final SharedScheduler INSTANCE = new SharedScheduler();

    /** The wheel's tick. */
    static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private SharedScheduler() {
    }

    @Override
    public Cancellable schedule(Runnable task, long delay, TimeUnit unit) {
        return Holder.WHEEL.schedule(task, delay, unit);
    }

    /** The wheel itself, for policies whose deadline object is its own timer node (started on first use). */
    public static TimerWheel wheel() {
        return Holder.WHEEL;
    }

    @Override
    public String toString() {
        return "Scheduler.shared()";
    }

    /** Lazy holder: the thread is started only when some policy first schedules something. */
    private static final class Holder {
        static final TimerWheel WHEEL = new TimerWheel(TICK_NANOS, 512, System::nanoTime).start("bulwark-timer");
    }
}
