package dev.bulwark.cli.internal.sim;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;

/**
 * The simulated downstream as the rest of a run sees it: calls go in, futures come back completed when the
 * call's work is done. Two implementations share {@link ProcessorSharingModel}: {@link SimulatedDownstream}
 * completes futures on a thread of its own in real time; {@link VirtualDownstream} completes them when the
 * virtual-time event loop reaches their end.
 */
interface Downstream extends AutoCloseable {

    /**
     * Starts a call that needs {@code workNanos} of service at full speed.
     *
     * @param workNanos the call's service time on an unloaded downstream
     * @return a future completed (with {@code null}) when the work is done, or exceptionally with a
     *     {@link CancellationException} when the run ends first ({@link #abortAll()})
     */
    CompletableFuture<Void> call(long workNanos);

    /**
     * Returns how many calls are in flight now.
     *
     * @return at least 0
     */
    int inFlight();

    /** Fails every call in flight, and every later call, with a {@link CancellationException}. Idempotent. */
    void abortAll();

    /**
     * Returns the facts of the run, closing the time integral at the current time. Call once, after the run.
     *
     * @return the statistics
     */
    DownstreamStatistics takeStatistics();

    /** Releases the downstream's thread, if any. Never throws. */
    @Override
    void close();
}
