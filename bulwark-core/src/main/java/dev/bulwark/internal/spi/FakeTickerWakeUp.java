package dev.bulwark.internal.spi;

import dev.bulwark.Scheduler;
import dev.bulwark.Ticker;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The wake-up of a thread parked for a bounded wait under a ticker other than {@link Ticker#system()} (a test's fake
 * one), used by the in-process and the Redis bulkheads' blocking waiters alike. A park for the real remaining wait
 * would not notice the fake ticker passing the deadline, so the bulkhead's scheduler (a test's manual one, driven
 * with the ticker) also unparks the thread at the deadline; the thread then reads the ticker again and re-arms, since
 * the ticker may have moved by less. The task only unparks: no user code on the timer. Stateless; thread-safe.
 */
public final class FakeTickerWakeUp {

    private FakeTickerWakeUp() {
    }

    /**
     * Arms the wake-up for the next park, cancelling the previous one.
     *
     * @param ticker the bulkhead's ticker; under the system ticker nothing is armed
     * @param scheduler the bulkhead's scheduler
     * @param thread the thread that parks
     * @param previous the wake-up armed before the previous park, or {@code null}
     * @param remainingNanos what remains of the wait by the ticker, positive
     * @return the armed wake-up, or {@code null} under the system ticker or when the scheduler refused (the
     *     real-time park still bounds the wait then)
     */
    public static Scheduler.Cancellable rearm(Ticker ticker, Scheduler scheduler, Thread thread,
                                              Scheduler.Cancellable previous, long remainingNanos) {
        if (ticker == Ticker.system()) {
            return null;
        }
        if (previous != null) {
            previous.cancel();
        }
        try {
            return scheduler.schedule(() -> LockSupport.unpark(thread), remainingNanos, TimeUnit.NANOSECONDS);
        } catch (RuntimeException | Error refused) {
            // An Error too: thrown on from the waiter it would leave the waiter queued for nobody (a later grant
            // would leak its slots). The wake-up only serves a fake ticker; the real-time park still bounds the wait.
            return null;
        }
    }
}
