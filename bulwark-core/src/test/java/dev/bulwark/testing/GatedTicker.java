package dev.bulwark.testing;

import dev.bulwark.Ticker;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A fake ticker that can stop one thread inside one of its reads: the hook race tests use to hold a thread at a
 * known point inside the bulkhead (the reads a bulkhead without listeners makes are few and documented in the
 * tests) while another thread does the racing action. Thread-safe.
 */
public final class GatedTicker implements Ticker {

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private volatile Thread gatedThread;
    private volatile int readsToSkip;
    private volatile CountDownLatch arrived = new CountDownLatch(0);
    private volatile CountDownLatch proceed = new CountDownLatch(0);

    @Override
    public long read() {
        if (Thread.currentThread() == gatedThread) {
            if (readsToSkip > 0) {
                readsToSkip--;
            } else {
                gatedThread = null;
                arrived.countDown();
                awaitQuietly(proceed);
            }
        }
        return nanos.get();
    }

    public void advance(Duration duration) {
        nanos.addAndGet(duration.toNanos());
    }

    /** Makes {@code thread} stop in its ticker read number {@code skip + 1} from now, until {@link #open()}. */
    public void closeOn(Thread thread, int skip) {
        arrived = new CountDownLatch(1);
        proceed = new CountDownLatch(1);
        readsToSkip = skip;
        gatedThread = thread;
    }

    /** Waits until the gated thread has stopped in the ticker. */
    public void awaitArrival() {
        awaitQuietly(arrived);
    }

    /** Lets the stopped thread go on. */
    public void open() {
        proceed.countDown();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) {
                throw new AssertionError("gate not reached within 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted at the gate", e);
        }
    }
}
