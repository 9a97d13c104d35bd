package dev.bulwark.redis.internal;

import dev.bulwark.BulkheadListener;
import dev.bulwark.Rejection;
import dev.bulwark.redis.LostPermit;
import dev.bulwark.redis.RedisBulkheadListener;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Fans a bulkhead's events out to its core and Redis listeners, isolating each one: a listener that throws is
 * logged (its first failure at WARNING, later ones at DEBUG) and never disturbs the call or the other listeners.
 * Thread-safe.
 */
final class Events {

    private static final System.Logger LOGGER = System.getLogger("dev.bulwark.redis.RedisBulkhead");

    private final String bulkheadName;
    private final BulkheadListener[] listeners;
    private final RedisBulkheadListener[] redisListeners;
    private final AtomicBoolean[] failedBefore;

    Events(String bulkheadName, List<BulkheadListener> listeners, List<RedisBulkheadListener> redisListeners) {
        this.bulkheadName = bulkheadName;
        this.listeners = listeners.toArray(new BulkheadListener[0]);
        this.redisListeners = redisListeners.toArray(new RedisBulkheadListener[0]);
        this.failedBefore = new AtomicBoolean[this.listeners.length + this.redisListeners.length];
        for (int i = 0; i < failedBefore.length; i++) {
            failedBefore[i] = new AtomicBoolean();
        }
    }

    /** Whether any core listener wants timings; when not, the hot path reads no clock for them. */
    boolean wantsTimings() {
        return listeners.length != 0;
    }

    void admitted(long waitedNanos) {
        Duration waited = duration(waitedNanos);
        each("admitted", listener -> listener.admitted(waited));
    }

    void rejected(Rejection rejection) {
        each("rejected", listener -> listener.rejected(rejection));
    }

    void cancelled(long waitedNanos) {
        Duration waited = duration(waitedNanos);
        each("cancelled", listener -> listener.cancelled(waited));
    }

    void released(long executionNanos) {
        Duration executionTime = duration(executionNanos);
        each("released", listener -> listener.released(executionTime));
    }

    void permitLost(LostPermit lostPermit) {
        eachRedis("permitLost", listener -> listener.permitLost(lostPermit));
    }

    void ranWithoutPermit(Throwable cause) {
        eachRedis("ranWithoutPermit", listener -> listener.ranWithoutPermit(cause));
    }

    static Duration duration(long nanos) {
        return nanos <= 0 ? Duration.ZERO : Duration.ofNanos(nanos);
    }

    private void each(String event, Consumer<BulkheadListener> call) {
        for (int i = 0; i < listeners.length; i++) {
            try {
                call.accept(listeners[i]);
            } catch (Throwable failure) {
                report(i, listeners[i], event, failure);
            }
        }
    }

    private void eachRedis(String event, Consumer<RedisBulkheadListener> call) {
        for (int i = 0; i < redisListeners.length; i++) {
            try {
                call.accept(redisListeners[i]);
            } catch (Throwable failure) {
                report(listeners.length + i, redisListeners[i], event, failure);
            }
        }
    }

    private void report(int index, Object listener, String event, Throwable failure) {
        boolean first = failedBefore[index].compareAndSet(false, true);
        System.Logger.Level level = first ? System.Logger.Level.WARNING : System.Logger.Level.DEBUG;
        if (LOGGER.isLoggable(level)) {
            LOGGER.log(level, "Listener " + listener + " of bulkhead '" + bulkheadName + "' threw on '" + event
                    + "'; the call is unaffected" + (first ? " (later failures are logged at DEBUG)" : ""), failure);
        }
    }
}
