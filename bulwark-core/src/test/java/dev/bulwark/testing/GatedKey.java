package dev.bulwark.testing;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A map key that can stop one thread inside one of its {@code hashCode} calls, or make one of them throw: the hook
 * partitioned-bulkhead race tests use to hold a thread at a known point of a lookup, removal or insertion while
 * another thread does the racing action. Equal by name. Thread-safe.
 */
public final class GatedKey {

    private final String name;
    private volatile Thread gatedThread;
    private volatile int callsToSkip;
    private volatile boolean failInstead;
    private volatile CountDownLatch arrived = new CountDownLatch(0);
    private volatile CountDownLatch proceed = new CountDownLatch(0);

    public GatedKey(String name) {
        this.name = name;
    }

    /**
     * Makes {@code thread} stop in its {@code hashCode} call number {@code skip + 1} from now, until {@link #open()}.
     */
    public void closeOn(Thread thread, int skip) {
        arrived = new CountDownLatch(1);
        proceed = new CountDownLatch(1);
        failInstead = false;
        callsToSkip = skip;
        gatedThread = thread;
    }

    /** Makes {@code thread}'s {@code hashCode} call number {@code skip + 1} from now throw {@link KeyFailure}. */
    public void failOn(Thread thread, int skip) {
        failInstead = true;
        callsToSkip = skip;
        gatedThread = thread;
    }

    /** Whether the gated thread has stopped in the gate set by {@link #closeOn}. */
    public boolean arrived() {
        return arrived.getCount() == 0;
    }

    /** Whether the gate has been used up: the gated thread reached it. */
    public boolean used() {
        return gatedThread == null;
    }

    /** Lets the stopped thread go on. */
    public void open() {
        proceed.countDown();
    }

    @Override
    public int hashCode() {
        // Only the gated thread counts down its skips, so the volatile decrement does not race.
        if (Thread.currentThread() == gatedThread) {
            if (callsToSkip > 0) {
                callsToSkip--;
            } else {
                gatedThread = null;
                if (failInstead) {
                    throw new KeyFailure(name);
                }
                arrived.countDown();
                try {
                    if (!proceed.await(30, TimeUnit.SECONDS)) {
                        throw new AssertionError("gate not opened within 30 s");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError("interrupted at the gate", e);
                }
            }
        }
        return name.hashCode();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof GatedKey && ((GatedKey) other).name.equals(name);
    }

    @Override
    public String toString() {
        return name;
    }

    /** What a failing {@code hashCode} throws. */
    public static final class KeyFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        KeyFailure(String key) {
            super("hashCode of " + key + " failed on purpose");
        }
    }
}
