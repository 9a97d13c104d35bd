package dev.bulwark.internal.bulkhead;

import dev.bulwark.BulkheadListener;
import dev.bulwark.Priority;
import dev.bulwark.Rejection;
import dev.bulwark.Ticker;
import dev.bulwark.internal.util.ListenerArray;
import dev.bulwark.internal.util.ListenerFailureLog;
import dev.bulwark.internal.stats.CallerContextListener;
import dev.bulwark.internal.stats.SampledListener;
import dev.bulwark.internal.stats.TimingSampler;
import java.util.Arrays;
import java.util.List;

/**
 * Fans a bulkhead's events out to its listeners, isolating each one: a listener that throws is logged (its
 * first failure at WARNING with the stack trace, later ones at DEBUG so that a broken listener cannot flood the
 * log) and never disturbs the call or the other listeners. The list, its copies and the logging are Bulwark's one
 * listener fan-out, {@link ListenerArray}; this class adds what a bulkhead needs of it: when the clock is read,
 * which events are worth telling, and the contexts of queued calls.
 *
 * <p>A bulkhead without listeners has no instance of this class at all, so that the hot path pays one null
 * check and no clock reads. Instances are immutable: attaching or detaching a listener swaps in a new one, made from
 * the {@link ListenerArray} copy of the one it replaces (see {@link InProcessBulkhead#addListener}). The events walk
 * the listeners by position with a {@code try} around each call rather than through {@link ListenerArray#each}: they
 * pass several values, some per listener, and must allocate nothing, and a fan-out in a lambda would also link a
 * class on a first call.
 *
 * <p><b>When the clock is read.</b> An execution time needs two clock readings per call, which cost about as much
 * as the rest of an uncontended call. {@link #startTime} reads the clock only when someone needs the time: a
 * listener that overrides {@link BulkheadListener#released} (found once, when it is attached), or
 * a metrics binding's {@link SampledListener} whose sampler picks this call. Otherwise it returns
 * {@link SampledListener#UNTIMED} and {@link #released} reads no clock either, nor tells the sampled listeners
 * anything (they derive their release counts, see {@link SampledListener#releasesSampled()}), so that a call outside
 * the sample costs a bound bulkhead only its admission count. One reading serves every listener. A listener attached
 * while an untimed call runs sees that call's release with an execution time of 0.
 */
final class BulkheadEvents {

    /** The logger a failing listener is logged to; looked up by {@link ListenerArray} only when one fails. */
    private static final String LOGGER_NAME = "dev.bulwark.Bulkhead";

    /**
     * The listeners in attachment order, each isolated and its failures logged (the one fan-out of
     * {@link ListenerArray}); never empty. The events below walk it by position, as the arrays that follow and a
     * waiter's {@link CallerContexts} are indexed alike.
     */
    private final ListenerArray<BulkheadListener> listeners;
    /**
     * By position: what the listener wants told ({@link #WANTS_EXECUTION_TIME}, {@link #WANTS_ADMISSIONS}), found by
     * reflection once, when it is attached, and copied with it from dispatcher to dispatcher.
     */
    private final int[] traits;
    /** By position: the listener itself when it can do with sampled execution times, else {@code null}. */
    private final SampledListener[] sampled;
    /** By position: the listener itself when it reports queued calls in their caller's context, else {@code null}. */
    private final CallerContextListener[] contextual;
    /** The first sampled listener's sampler, which decides for all of them; {@code null} when none is attached. */
    private final TimingSampler sampler;
    /** Whether some plain listener wants every execution time (it overrides {@link BulkheadListener#released}). */
    private final boolean timesEveryCall;
    /**
     * Whether some listener overrides an {@code admitted} method. A listener that only logs refusals then costs an
     * admitted call nothing but the volatile read that finds this dispatcher.
     */
    private final boolean tellsAdmissions;
    /** Whether some listener reports queued calls in their caller's context ({@link CallerContextListener}). */
    private final boolean capturesContexts;

    /** A trait: a plain listener that overrides {@link BulkheadListener#released}, and so needs every time. */
    private static final int WANTS_EXECUTION_TIME = 1;
    /** A trait: it overrides either {@code admitted} method (or is sampled); if not, telling it would do nothing. */
    private static final int WANTS_ADMISSIONS = 2;

    private BulkheadEvents(ListenerArray<BulkheadListener> listeners, int[] traits) {
        this.listeners = listeners;
        this.traits = traits;
        int size = listeners.size();
        this.sampled = new SampledListener[size];
        this.contextual = new CallerContextListener[size];
        boolean timesAll = false;
        boolean admissions = false;
        boolean contexts = false;
        TimingSampler first = null;
        for (int i = 0; i < size; i++) {
            BulkheadListener listener = listeners.get(i);
            timesAll |= (traits[i] & WANTS_EXECUTION_TIME) != 0;
            admissions |= (traits[i] & WANTS_ADMISSIONS) != 0;
            if (listener instanceof SampledListener) {
                SampledListener timedBySample = (SampledListener) listener;
                sampled[i] = timedBySample;
                // Told before this dispatcher is published, so before it reports any release to them.
                timedBySample.releasesSampled();
                if (first == null) {
                    first = timedBySample.sampler();
                }
            }
            if (listener instanceof CallerContextListener) {
                contextual[i] = (CallerContextListener) listener;
                contexts = true;
            }
        }
        this.sampler = first;
        this.timesEveryCall = timesAll;
        this.tellsAdmissions = admissions;
        this.capturesContexts = contexts;
    }

    /**
     * Finds what a listener wants told; by reflection, so called once per attachment, outside any retry loop.
     *
     * @return its traits, for {@link #with}
     */
    static int traitsOf(BulkheadListener listener) {
        if (listener instanceof SampledListener) {
            return WANTS_ADMISSIONS; // its execution times are sampled; it counts every admission
        }
        Class<?> type = listener.getClass();
        int traits = overrides(type, "released", long.class) ? WANTS_EXECUTION_TIME : 0;
        if (overrides(type, "admitted", long.class) || overrides(type, "admitted", long.class, Priority.class)) {
            traits |= WANTS_ADMISSIONS;
        }
        return traits;
    }

    /** Whether {@code type} overrides a method of {@link BulkheadListener}. */
    private static boolean overrides(Class<?> type, String method, Class<?>... parameters) {
        try {
            return type.getMethod(method, parameters).getDeclaringClass() != BulkheadListener.class;
        } catch (NoSuchMethodException | SecurityException unexpected) {
            return true; // cannot tell: report the event, as a listener may expect
        }
    }

    /** Returns the dispatcher for these listeners, or {@code null} when there are none. */
    static BulkheadEvents of(String bulkheadName, List<BulkheadListener> listeners) {
        if (listeners.isEmpty()) {
            return null;
        }
        int[] traits = new int[listeners.size()];
        for (int i = 0; i < traits.length; i++) {
            traits[i] = traitsOf(listeners.get(i));
        }
        return new BulkheadEvents(ListenerArray.of(LOGGER_NAME, "bulkhead ", bulkheadName, listeners), traits);
    }

    /**
     * Returns a dispatcher with one more listener, last (the given one is immutable).
     *
     * @param traits the listener's {@link #traitsOf}
     * @param attachment names this attachment for {@link #without}
     */
    static BulkheadEvents with(BulkheadEvents current, String bulkheadName, BulkheadListener listener, int traits,
                               ListenerFailureLog attachment) {
        if (current == null) {
            ListenerArray<BulkheadListener> none = ListenerArray.of(LOGGER_NAME, "bulkhead ", bulkheadName, List.of());
            return new BulkheadEvents(none.with(listener, attachment), new int[] {traits});
        }
        int[] longer = Arrays.copyOf(current.traits, current.traits.length + 1);
        longer[current.traits.length] = traits;
        return new BulkheadEvents(current.listeners.with(listener, attachment), longer);
    }

    /**
     * Returns a dispatcher without the listener of that attachment: {@code current} itself when it has none (it was
     * detached already), {@code null} when none is left.
     */
    static BulkheadEvents without(BulkheadEvents current, ListenerFailureLog attachment) {
        if (current == null) {
            return null;
        }
        int index = current.listeners.indexOf(attachment);
        if (index < 0) {
            return current;
        }
        if (current.traits.length == 1) {
            return null;
        }
        int[] shorter = new int[current.traits.length - 1];
        System.arraycopy(current.traits, 0, shorter, 0, index);
        System.arraycopy(current.traits, index + 1, shorter, index, shorter.length - index);
        return new BulkheadEvents(current.listeners.without(attachment), shorter);
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
        for (int i = 0; i < contextual.length; i++) {
            CallerContextListener keeper = contextual[i];
            if (keeper == null) {
                continue;
            }
            Object value;
            try {
                value = keeper.callerContext();
            } catch (Throwable failure) {
                listeners.failed(i, "callerContext", failure);
                continue;
            }
            if (value != null) {
                if (values == null) {
                    values = new Object[contextual.length];
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
        for (int i = 0; i < listeners.size(); i++) {
            try {
                listeners.get(i).admitted(waited, priority);
            } catch (Throwable failure) {
                listeners.failed(i, "admitted", failure);
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
        for (int i = 0; i < listeners.size(); i++) {
            try {
                Object context = contextFor(contexts, i);
                if (context != null) {
                    contextual[i].admitted(waited, priority, context);
                } else {
                    listeners.get(i).admitted(waited, priority);
                }
            } catch (Throwable failure) {
                listeners.failed(i, "admitted", failure);
            }
        }
    }

    void rejected(Rejection rejection) {
        rejected(rejection, null);
    }

    /** Reports a refusal; a queued call's with the contexts captured when it started to wait. */
    void rejected(Rejection rejection, CallerContexts contexts) {
        for (int i = 0; i < listeners.size(); i++) {
            try {
                Object context = contextFor(contexts, i);
                if (context != null) {
                    contextual[i].rejected(rejection, context);
                    continue;
                }
                listeners.get(i).rejected(rejection);
            } catch (Throwable failure) {
                listeners.failed(i, "rejected", failure);
            }
        }
    }

    /** Reports a queued call's cancellation, with the contexts captured when it started to wait. */
    void cancelled(long waitedNanos, Priority priority, CallerContexts contexts) {
        long waited = Math.max(0L, waitedNanos);
        for (int i = 0; i < listeners.size(); i++) {
            try {
                Object context = contextFor(contexts, i);
                if (context != null) {
                    contextual[i].cancelled(waited, priority, context);
                    continue;
                }
                listeners.get(i).cancelled(waited, priority);
            } catch (Throwable failure) {
                listeners.failed(i, "cancelled", failure);
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
        for (int i = 0; i < listeners.size(); i++) {
            SampledListener timedBySample = sampled[i];
            try {
                if (timedBySample != null) {
                    // An untimed release is not reported at all: the sampled listener derives its count.
                    if (!untimed) {
                        timedBySample.released(executionNanos, endedAt);
                    }
                } else {
                    listeners.get(i).released(executionTime);
                }
            } catch (Throwable failure) {
                listeners.failed(i, "released", failure);
            }
        }
    }
}
