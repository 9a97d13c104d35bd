package dev.bulwark.redis.internal;

import dev.bulwark.BulkheadListener;
import dev.bulwark.Priority;
import dev.bulwark.Rejection;
import dev.bulwark.redis.LostPermit;
import dev.bulwark.redis.RedisBulkheadListener;
import dev.bulwark.Subscription;
import dev.bulwark.internal.util.ListenerFailureLog;
import dev.bulwark.internal.timer.OffTimer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * Fans a bulkhead's events out to its core and Redis listeners, isolating each one: a listener that throws is
 * logged (its first failure at WARNING, later ones at DEBUG) and never disturbs the call or the other listeners.
 * Thread-safe.
 */
final class ClusterEvents {

    private static final System.Logger LOGGER = System.getLogger("dev.bulwark.redis.RedisBulkhead");

    private final String bulkheadName;
    /** Core listeners; never mutated, replaced by compare-and-set when one is attached or detached. */
    private final AtomicReference<Entry[]> listeners;
    private final Entry[] redisListeners;

    ClusterEvents(String bulkheadName, List<BulkheadListener> listeners, List<RedisBulkheadListener> redisListeners) {
        this.bulkheadName = bulkheadName;
        this.listeners = new AtomicReference<>(entries(listeners));
        this.redisListeners = entries(redisListeners);
    }

    private static Entry[] entries(List<?> listeners) {
        Entry[] entries = new Entry[listeners.size()];
        for (int i = 0; i < entries.length; i++) {
            entries[i] = new Entry(listeners.get(i));
        }
        return entries;
    }

    /** Attaches a core listener; the returned subscription detaches it. */
    Subscription add(BulkheadListener listener) {
        Entry entry = new Entry(listener);
        listeners.updateAndGet(current -> {
            Entry[] longer = Arrays.copyOf(current, current.length + 1);
            longer[current.length] = entry;
            return longer;
        });
        return () -> listeners.updateAndGet(current -> {
            List<Entry> kept = new ArrayList<>(Arrays.asList(current));
            kept.remove(entry);
            return kept.toArray(new Entry[0]);
        });
    }

    /** Whether any core listener wants timings; when not, the hot path reads no clock for them. */
    boolean wantsTimings() {
        return listeners.get().length != 0;
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
        for (Entry entry : listeners.get()) {
            try {
                call.accept((BulkheadListener) entry.listener);
            } catch (Throwable failure) {
                report(entry, event, failure);
            }
        }
    }

    private void eachRedis(String event, Consumer<RedisBulkheadListener> call) {
        if (OffTimer.onTimerThread()) {
            OffTimer.handOff(() -> eachRedis(event, call));
            return;
        }
        for (Entry entry : redisListeners) {
            try {
                call.accept((RedisBulkheadListener) entry.listener);
            } catch (Throwable failure) {
                report(entry, event, failure);
            }
        }
    }

    private void report(Entry entry, String event, Throwable failure) {
        entry.failures.log(LOGGER, entry.listener, "bulkhead '" + bulkheadName + "'", event, failure);
    }

    /** One listener and whether it failed before, so its failures are logged loudly once. */
    private static final class Entry {
        final Object listener;
        final ListenerFailureLog failures = new ListenerFailureLog();

        Entry(Object listener) {
            this.listener = listener;
        }
    }
}
