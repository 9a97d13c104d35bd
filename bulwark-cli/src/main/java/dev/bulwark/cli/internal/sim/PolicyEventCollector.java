package dev.bulwark.cli.internal.sim;

import dev.bulwark.RetryEvent;
import dev.bulwark.RetryListener;
import dev.bulwark.TimeoutExceededException;
import dev.bulwark.TimeoutListener;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts what the retry and the timeout around each call report through their public listener interfaces: how
 * many retries were made and how many attempts timed out (including attempts that were then retried, which the
 * calls' outcomes do not show). Thread-safe.
 */
public final class PolicyEventCollector implements RetryListener, TimeoutListener {

    private final AtomicLong retries = new AtomicLong();
    private final AtomicLong timedOutAttempts = new AtomicLong();

    @Override
    public void retryScheduled(RetryEvent event) {
        retries.incrementAndGet();
    }

    @Override
    public void timedOut(TimeoutExceededException exception) {
        timedOutAttempts.incrementAndGet();
    }

    @Override
    public void finishedInTime(long elapsedNanos) {
        // Only timeouts are counted.
    }

    /**
     * Returns the retries made so far.
     *
     * @return at least 0
     */
    public long retries() {
        return retries.get();
    }

    /**
     * Returns the attempts whose deadline passed so far.
     *
     * @return at least 0
     */
    public long timedOutAttempts() {
        return timedOutAttempts.get();
    }
}
