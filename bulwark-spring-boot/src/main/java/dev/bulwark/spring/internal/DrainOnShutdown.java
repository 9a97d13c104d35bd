package dev.bulwark.spring.internal;

import dev.bulwark.Bulkhead;
import dev.bulwark.Bulkheads;
import dev.bulwark.DrainResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.context.SmartLifecycle;

/**
 * Drains the application's bulkheads when the context shuts down: every bulkhead stops admitting and refuses its
 * queue at once ({@code CLOSED}), then the running calls get up to the drain timeout, shared by all bulkheads, to
 * finish. What was left running is logged.
 *
 * <p>Its phase is above the web server's graceful shutdown ({@code SmartLifecycle.DEFAULT_PHASE - 1024}), so it
 * stops first: queued requests get their refusal at once instead of holding the graceful shutdown until they time
 * out, and the web server then waits only for requests that are really running. Thread-safe; {@link #stop()} runs
 * once per start.
 */
public final class DrainOnShutdown implements SmartLifecycle {

    /** Stops before the web server's graceful shutdown ({@code DEFAULT_PHASE - 1024}), which stops before it. */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 512;

    /** The longest wait a {@code long} of nanoseconds holds; longer drain timeouts are cut to it. */
    private static final Duration LONGEST = Duration.ofNanos(Long.MAX_VALUE);

    private static final System.Logger LOGGER = System.getLogger(DrainOnShutdown.class.getName());

    private final Bulkheads bulkheads;
    private final Duration timeout;
    private volatile boolean running;

    /**
     * Creates the lifecycle.
     *
     * @param bulkheads the registry whose bulkheads are drained
     * @param timeout how long the running calls of all bulkheads get together, zero or positive; one longer than
     *                {@code Long.MAX_VALUE} nanoseconds (about 292 years) waits until the last call ends
     * @throws IllegalArgumentException when {@code timeout} is negative
     */
    public DrainOnShutdown(Bulkheads bulkheads, Duration timeout) {
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("bulwark.drain-timeout must not be negative but was " + timeout);
        }
        this.bulkheads = bulkheads;
        this.timeout = timeout;
    }

    @Override
    public void start() {
        running = true;
    }

    @Override
    public void stop() {
        if (!running) {
            return;
        }
        running = false;
        List<Bulkhead> all = new ArrayList<>(bulkheads.all());
        List<Bulkhead> drainable = new ArrayList<>(all.size());
        for (Bulkhead bulkhead : all) {
            try {
                bulkhead.close(); // everyone stops admitting before anyone waits
                drainable.add(bulkhead);
            } catch (RuntimeException failure) {
                // One bulkhead that cannot close (a foreign implementation) must not keep the others open.
                LOGGER.log(System.Logger.Level.WARNING, "Bulkhead '" + bulkhead.name() + "' could not be closed",
                        failure);
            }
        }
        // Saturated: a timeout beyond Long.MAX_VALUE nanoseconds (about 292 years) means "as long as it takes". The
        // sum may wrap, but deadline - System.nanoTime() below is still right (the elapsed time stays far below it).
        long timeoutNanos = timeout.compareTo(LONGEST) >= 0 ? Long.MAX_VALUE : timeout.toNanos();
        long deadline = System.nanoTime() + timeoutNanos;
        for (Bulkhead bulkhead : drainable) {
            DrainResult result;
            try {
                result = bulkhead.drain(Duration.ofNanos(Math.max(0L, deadline - System.nanoTime())));
            } catch (RuntimeException failure) {
                LOGGER.log(System.Logger.Level.WARNING, "Bulkhead '" + bulkhead.name() + "' could not be drained",
                        failure);
                continue;
            }
            if (!result.isComplete()) {
                LOGGER.log(System.Logger.Level.WARNING, "Bulkhead ''{0}'' still ran {1} call(s) after the drain "
                        + "timeout of {2}", result.bulkheadName(), result.stillExecuting(), timeout);
            }
            if (Thread.currentThread().isInterrupted()) {
                return;
            }
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
