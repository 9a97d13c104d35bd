package dev.bulwark.redis.internal;

import dev.bulwark.BulkheadListener;
import dev.bulwark.Priority;
import dev.bulwark.Rejection;
import dev.bulwark.redis.LostPermit;
import dev.bulwark.redis.RedisBulkheadListener;
import dev.bulwark.Subscription;
import dev.bulwark.internal.util.ListenerArray;
import dev.bulwark.internal.util.ListenerList;
import dev.bulwark.internal.timer.OffTimer;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * Fans a bulkhead's events out to its core and Redis listeners, isolating each one: a listener that throws is
 * logged (its first failure at WARNING, later ones at DEBUG) and never disturbs the call or the other listeners.
 * The lists and the isolation are core's one listener fan-out ({@link ListenerList}, {@link ListenerArray}); this
 * class adds that no listener runs on the timer thread. Thread-safe.
 */
final class ClusterEvents {

    private static final String LOGGER_NAME = "dev.bulwark.redis.RedisBulkhead";

    /** Core listeners, attachable at run time (copy-on-write, see {@link ListenerList}). */
    private final ListenerList<BulkheadListener> listeners;
    /** Redis listeners, given to the builder only. */
    private final ListenerArray<RedisBulkheadListener> redisListeners;

    ClusterEvents(String bulkheadName, List<BulkheadListener> listeners, List<RedisBulkheadListener> redisListeners) {
        this.listeners = new ListenerList<>(LOGGER_NAME, "bulkhead ", bulkheadName, listeners);
        this.redisListeners = ListenerArray.of(LOGGER_NAME, "bulkhead ", bulkheadName, redisListeners);
    }

    /** Attaches a core listener; the returned subscription detaches it. */
    Subscription add(BulkheadListener listener) {
        return listeners.add(listener);
    }

    /** Whether any core listener wants timings; when not, the hot path reads no clock for them. */
    boolean wantsTimings() {
        return !listeners.isEmpty();
    }

    void admitted(long waitedNanos, Priority priority) {
        long waited = Math.max(0L, waitedNanos);
        each("admitted", listener -> listener.admitted(waited, priority));
    }

    void rejected(Rejection rejection) {
        each("rejected", listener -> listener.rejected(rejection));
    }

    void cancelled(long waitedNanos, Priority priority) {
        long waited = Math.max(0L, waitedNanos);
        each("cancelled", listener -> listener.cancelled(waited, priority));
    }

    void released(long executionNanos) {
        long executionTime = Math.max(0L, executionNanos);
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
        if (OffTimer.onTimerThread()) {
            // The lease keeper's tick runs on the scheduler, the shared timer thread by default: no user code there.
            OffTimer.handOff(() -> each(event, call));
            return;
        }
        listeners.each(event, call);
    }

    private void eachRedis(String event, Consumer<RedisBulkheadListener> call) {
        if (OffTimer.onTimerThread()) {
            OffTimer.handOff(() -> eachRedis(event, call));
            return;
        }
        redisListeners.each(event, call);
    }
}
