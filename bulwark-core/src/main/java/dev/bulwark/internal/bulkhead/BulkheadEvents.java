package dev.bulwark.internal.bulkhead;

import dev.bulwark.BulkheadListener;
import dev.bulwark.Priority;
import dev.bulwark.Rejection;
import dev.bulwark.Ticker;
import dev.bulwark.internal.util.ListenerFailureLog;
import dev.bulwark.internal.stats.CallerContextListener;
import dev.bulwark.internal.stats.SampledListener;
import dev.bulwark.internal.stats.TimingSampler;
import java.util.List;

/**
 * Fans a bulkhead's events out to its listeners, isolating each one: a listener that throws is logged (its
 * first failure at WARNING with the stack trace, later ones at DEBUG so that a broken listener cannot flood the
 * log) and never disturbs the call or the other listeners.
 *
 * <p>A bulkhead without listeners has no instance of this class at all, so that the hot path pays one null
 * check and no clock reads. Instances are immutable: attaching or detaching a listener swaps in a new one.
 *
 * <p><b>When the clock is read.</b> An execution time needs two clock readings per call, which cost about as much
 * as the rest of an uncontended call. {@link #startTime} reads the clock only when someone needs the time: a
 * listener that overrides {@link BulkheadListener#released} (found once, when it is attached), or a metrics
 * binding's {@link SampledListener} whose sampler picks this call. Otherwise it returns
 * {@link SampledListener#UNTIMED} and {@link #released} reads no clock either, nor tells the sampled listeners
 * anything (they derive their release counts, see {@link SampledListener#releasesSampled()}), so that a call outside
 * the sample costs a bound bulkhead only its admission count. One reading serves every listener. A listener attached
 * while an untimed call runs sees that call's release with an execution time of 0.
 */
final class BulkheadEvents {

    /**
     * The logger, looked up when first needed: finding the logging back end costs milliseconds (a service look-up)
     * that neither {@code build()} nor a caller's first call should pay for a failure that may never come.
     */
    private static final class Log {
        static final System.Logger LOGGER = System.getLogger("dev.bulwark.Bulkhead");

        private Log() {
        }
    }

    private final String bulkheadName;
    private final Entry[] entries;
    /** The first sampled listener's sampler, which decides for all of them; {@code null} when none is attached. */
    private final TimingSampler sampler;
    /** Whether some plain listener wants every execution time. */
    private final boolean timesEveryCall;
    /**
     * Whether some listener overrides an {@code admitted} method. A listener that only logs refusals then costs an
     * admitted call nothing but the volatile read that finds this dispatcher.
     */
    private final boolean tellsAdmissions;
    /** Whether some listener reports queued calls in their caller's context ({@link CallerContextListener}). */
    private final boolean capturesContexts;

    private BulkheadEvents(String bulkheadName, Entry[] entries) {
        this.bulkheadName = bulkheadName;
        this.entries = entries;
        boolean timesAll = false;
        boolean admissions = false;
        boolean contexts = false;
        for (Entry entry : entries) {
            timesAll |= entry.sampled == null && entry.wantsExecutionTime;
            admissions |= entry.wantsAdmissions;
            contexts |= entry.contextual != null;
        }
        this.tellsAdmissions = admissions;
        this.capturesContexts = contexts;
        TimingSampler first = null;
        for (Entry entry : entries) {
            if (entry.sampled != null) {
                // Told before this dispatcher is published, so before it reports any release to them.
                entry.sampled.releasesSampled();
                if (first == null) {
                    first = entry.sampled.sampler();
                }
            }
        }
        this.sampler = first;
        this.timesEveryCall = timesAll;
    }

    /** Returns the dispatcher for these listeners, or {@code null} when there are none. */
    static BulkheadEvents of(String bulkheadName, List<BulkheadListener> listeners) {
        if (listeners.isEmpty()) {
            return null;
        }
        Entry[] entries = new Entry[listeners.size()];
        for (int i = 0; i < entries.length; i++) {
            entries[i] = new Entry(listeners.get(i));
        }
        return new BulkheadEvents(bulkheadName, entries);
    }

    /** Returns a dispatcher with one more listener (this one is immutable). */
    static BulkheadEvents with(BulkheadEvents current, String bulkheadName, Entry added) {
        if (current == null) {
            return new BulkheadEvents(bulkheadName, new Entry[] {added});
        }
        Entry[] entries = java.util.Arrays.copyOf(current.entries, current.entries.length + 1);
        entries[entries.length - 1] = added;
        return new BulkheadEvents(bulkheadName, entries);
    }

    /** Returns a dispatcher without the given entry, or {@code null} when none is left. */
    static BulkheadEvents without(BulkheadEvents current, Entry removed) {
        if (current == null) {
            return null;
        }
        int index = -1;
        for (int i = 0; i < current.entries.length; i++) {
            if (current.entries[i] == removed) {
                index = i;
                break;
            }
        }
        if (index < 0) {
            return current;
        }
        if (current.entries.length == 1) {
            return null;
        }
        Entry[] entries = new Entry[current.entries.length - 1];
        System.arraycopy(current.entries, 0, entries, 0, index);
        System.arraycopy(current.entries, index + 1, entries, index, entries.length - index);
        return new BulkheadEvents(current.bulkheadName, entries);
    }

    /** One listener and whether it has failed before (so its failures are logged loudly once). */
    static final class Entry {
        final BulkheadListener listener;
        final ListenerFailureLog failures = new ListenerFailureLog();
        /** The listener itself when it can do with sampled execution times, else {@code null}. */
        final SampledListener sampled;
        /** The listener itself when it reports queued calls in their caller's context, else {@code null}. */
        final CallerContextListener contextual;
        /** Whether it overrides {@link BulkheadListener#released}, and so needs every execution time. */
        final boolean wantsExecutionTime;
        /** Whether it overrides either {@code admitted} method; if not, telling it an admission would do nothing. */
        final boolean wantsAdmissions;

        Entry(BulkheadListener listener) {
            this.listener = listener;
            this.sampled = listener instanceof SampledListener ? (SampledListener) listener : null;
            this.contextual = listener instanceof CallerContextListener ? (CallerContextListener) listener : null;
            Class<?> type = listener.getClass();
            this.wantsExecutionTime = sampled == null && overrides(type, "released", long.class);
            this.wantsAdmissions = sampled != null || overrides(type, "admitted", long.class)
                    || overrides(type, "admitted", long.class, Priority.class);
        }

        private static boolean overrides(Class<?> type, String method, Class<?>... parameters) {
            try {
                return type.getMethod(method, parameters).getDeclaringClass() != BulkheadListener.class;
            } catch (NoSuchMethodException | SecurityException unexpected) {
                return true; // cannot tell: report the event, as a listener may expect
            }
        }
    }

    /**
     * Reads the clock for an admitted call's start if anyone needs its execution time.
     *
     * @return the reading, or {@link SampledListener#UNTIMED}
     */
    long startTime(Ticker ticker) {
        TimingSampler decides = sampler;
        if (timesEveryCall || (decides != null && decides.shouldTime())) {
            return ticker.read();
        }
        return SampledListener.UNTIMED;
    }

    /**
     * Whether some listener wants every execution time. When not, a call that {@link #startTime} left untimed need
     * not be reported at release at all: the sampled listeners derive their counts and a plain listener that does
     * not override {@link BulkheadListener#released} would only run the default no-op.
     */
    boolean timesEveryCall() {
        return timesEveryCall;
    }

    /**
     * Captures, on a caller's thread as its call starts to wait, the contexts its outcome should be reported in (see
     * {@link CallerContextListener}).
     *
     * @return the contexts, or {@code null} when no listener keeps one (the common case: nothing is allocated)
     */
    CallerContexts captureCallerContexts() {
        if (!capturesContexts) {
            return null;
        }
        Object[] values = null;
        for (int i = 0; i < entries.length; i++) {
            CallerContextListener contextual = entries[i].contextual;
            if (contextual == null) {
                continue;
            }
            Object value;
            try {
                value = contextual.callerContext();
            } catch (Throwable failure) {
                report(i, "callerContext", failure);
                continue;
            }
            if (value != null) {
                if (values == null) {
                    values = new Object[entries.length];
                }
                values[i] = value;
            }
        }
        return values == null ? null : new CallerContexts(this, values);
    }

    /**
     * The contexts captured for one waiter, tied to the dispatcher that captured them: they are indexed by its
     * entries, so a dispatcher that replaced it (a listener came or went while the call waited) ignores them and
     * reports as for a call that did not queue.
     */
    static final class CallerContexts {
        final BulkheadEvents capturedBy;
        final Object[] values;

        CallerContexts(BulkheadEvents capturedBy, Object[] values) {
            this.capturedBy = capturedBy;
            this.values = values;
        }
    }

    /** The context captured for entry {@code index}, or {@code null} when none applies to this dispatcher. */
    private Object contextFor(CallerContexts contexts, int index) {
        return contexts == null || contexts.capturedBy != this ? null : contexts.values[index];
    }

    /** Reports the admission of a call that did not queue (the uncontended path: no context to look up). */
    void admitted(long waitedNanos, Priority priority) {
        if (!tellsAdmissions) {
            return;
        }
        long waited = Math.max(0L, waitedNanos);
        for (int i = 0; i < entries.length; i++) {
            try {
                entries[i].listener.admitted(waited, priority);
            } catch (Throwable failure) {
                report(i, "admitted", failure);
            }
        }
    }

    /** Reports a queued call's admission, with the contexts captured when it started to wait. */
    void admitted(long waitedNanos, Priority priority, CallerContexts contexts) {
        if (contexts == null) {
            admitted(waitedNanos, priority);
            return;
        }
        if (!tellsAdmissions) {
            return;
        }
        long waited = Math.max(0L, waitedNanos);
        for (int i = 0; i < entries.length; i++) {
            try {
                Object context = contextFor(contexts, i);
                if (context != null) {
                    entries[i].contextual.admitted(waited, priority, context);
                } else {
                    entries[i].listener.admitted(waited, priority);
                }
            } catch (Throwable failure) {
                report(i, "admitted", failure);
            }
        }
    }

    void rejected(Rejection rejection) {
        rejected(rejection, null);
    }

    /** Reports a refusal; a queued call's with the contexts captured when it started to wait. */
    void rejected(Rejection rejection, CallerContexts contexts) {
        for (int i = 0; i < entries.length; i++) {
            try {
                Object context = contextFor(contexts, i);
                if (context != null) {
                    entries[i].contextual.rejected(rejection, context);
                    continue;
                }
                entries[i].listener.rejected(rejection);
            } catch (Throwable failure) {
                report(i, "rejected", failure);
            }
        }
    }

    /** Reports a queued call's cancellation, with the contexts captured when it started to wait. */
    void cancelled(long waitedNanos, Priority priority, CallerContexts contexts) {
        long waited = Math.max(0L, waitedNanos);
        for (int i = 0; i < entries.length; i++) {
            try {
                Object context = contextFor(contexts, i);
                if (context != null) {
                    entries[i].contextual.cancelled(waited, priority, context);
                    continue;
                }
                entries[i].listener.cancelled(waited, priority);
            } catch (Throwable failure) {
                report(i, "cancelled", failure);
            }
        }
    }

    /**
     * Reports a release.
     *
     * @param executionNanos the execution time, or {@link SampledListener#UNTIMED}
     * @param endedAt the clock reading that ended the execution (meaningless when untimed)
     */
    void released(long executionNanos, long endedAt) {
        boolean untimed = executionNanos == SampledListener.UNTIMED;
        long executionTime = Math.max(0L, executionNanos);
        for (int i = 0; i < entries.length; i++) {
            Entry entry = entries[i];
            try {
                if (entry.sampled != null) {
                    // An untimed release is not reported at all: the sampled listener derives its count.
                    if (!untimed) {
                        entry.sampled.released(executionNanos, endedAt);
                    }
                } else {
                    entry.listener.released(executionTime);
                }
            } catch (Throwable failure) {
                report(i, "released", failure);
            }
        }
    }

    private void report(int index, String event, Throwable failure) {
        Entry entry = entries[index];
        entry.failures.log(Log.LOGGER, entry.listener, "bulkhead '" + bulkheadName + "'", event, failure);
    }
}
