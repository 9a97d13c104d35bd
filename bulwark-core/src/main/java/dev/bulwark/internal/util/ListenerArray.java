package dev.bulwark.internal.util;

import java.util.List;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * An immutable list of listeners, each with its own {@link ListenerFailureLog}, and the one way Bulwark tells them
 * of an event: each listener is called in attachment order, isolated from the caller and from the others, so that a
 * listener that throws is logged (its first failure at WARNING with the stack trace, later ones at DEBUG) and never
 * disturbs the call or the listeners after it. Every listener fan-out of Bulwark is built on it: {@link ListenerList}
 * (retries, timeouts, fallbacks, registries, per-key bulkheads, the cluster-wide bulkhead) and the in-process
 * bulkhead's dispatcher, which holds one of these in a field of its own so that its hot path reads that field alone.
 *
 * <p><b>Copy-on-write.</b> An instance is never mutated: {@link #with} and {@link #without} return a new one, and a
 * fan-out walks the instance it started with, so a listener attached or detached meanwhile neither sees a half-built
 * array nor changes the walk in progress. A listener's failure log travels with it from copy to copy (it is also what
 * names one attachment, so the same listener attached twice is two entries), which keeps "first failure" per
 * attachment however often the list is copied.
 *
 * <p>Thread-safe (immutable; the failure logs are thread-safe). The logger is looked up by name only when a listener
 * fails: finding the logging back end costs milliseconds (a service look-up) that neither {@code build()} nor a
 * caller's first call should pay for a failure that may never come.
 *
 * @param <L> the listener type
 */
public final class ListenerArray<L> {

    private static final Object[] NO_LISTENERS = {};
    private static final ListenerFailureLog[] NO_LOGS = {};

    private final String loggerName;
    /** With {@code name}, names the policy in log messages: {@code bulkhead 'db'} is {@code "bulkhead "} + 'db'. */
    private final String kind;
    private final String name;
    /** Never mutated; {@code failures[i]} belongs to {@code listeners[i]}. */
    private final Object[] listeners;
    private final ListenerFailureLog[] failures;

    private ListenerArray(String loggerName, String kind, String name, Object[] listeners,
                          ListenerFailureLog[] failures) {
        this.loggerName = loggerName;
        this.kind = kind;
        this.name = name;
        this.listeners = listeners;
        this.failures = failures;
    }

    /**
     * Makes the listener array of a policy.
     *
     * @param loggerName the name of the logger a failing listener is logged to ({@code dev.bulwark.Bulkhead}, ...)
     * @param kind what the policy is in log messages, followed by a space ({@code "bulkhead "}), or {@code ""}
     * @param name the policy's name; a message names it as {@code kind + "'" + name + "'"}, made only on a failure
     * @param initial the listeners given to the builder, in order; none is {@code null}
     * @param <L> the listener type
     * @return the array
     * @throws NullPointerException when a listener is {@code null}
     */
    public static <L> ListenerArray<L> of(String loggerName, String kind, String name, List<? extends L> initial) {
        if (initial.isEmpty()) {
            return new ListenerArray<>(loggerName, kind, name, NO_LISTENERS, NO_LOGS);
        }
        Object[] listeners = new Object[initial.size()];
        ListenerFailureLog[] failures = new ListenerFailureLog[listeners.length];
        for (int i = 0; i < listeners.length; i++) {
            listeners[i] = Objects.requireNonNull(initial.get(i), "listener");
            failures[i] = new ListenerFailureLog();
        }
        return new ListenerArray<>(loggerName, kind, name, listeners, failures);
    }

    /**
     * Returns a copy with one more listener, last.
     *
     * @param listener the listener, not {@code null}
     * @param attachment a failure log made for this attachment alone; {@link #without} detaches by it
     * @return the longer copy (this instance is unchanged)
     */
    public ListenerArray<L> with(L listener, ListenerFailureLog attachment) {
        int size = listeners.length;
        Object[] longer = new Object[size + 1];
        ListenerFailureLog[] logs = new ListenerFailureLog[size + 1];
        System.arraycopy(listeners, 0, longer, 0, size);
        System.arraycopy(failures, 0, logs, 0, size);
        longer[size] = Objects.requireNonNull(listener, "listener");
        logs[size] = Objects.requireNonNull(attachment, "attachment");
        return new ListenerArray<>(loggerName, kind, name, longer, logs);
    }

    /**
     * Returns a copy without the listener attached with {@code attachment}, the others in the same order.
     *
     * @param attachment the failure log given to {@link #with}
     * @return the shorter copy, or this instance when that attachment is not in it (already detached)
     */
    public ListenerArray<L> without(ListenerFailureLog attachment) {
        int index = indexOf(attachment);
        if (index < 0) {
            return this;
        }
        int size = listeners.length - 1;
        Object[] shorter = size == 0 ? NO_LISTENERS : new Object[size];
        ListenerFailureLog[] logs = size == 0 ? NO_LOGS : new ListenerFailureLog[size];
        System.arraycopy(listeners, 0, shorter, 0, index);
        System.arraycopy(listeners, index + 1, shorter, index, size - index);
        System.arraycopy(failures, 0, logs, 0, index);
        System.arraycopy(failures, index + 1, logs, index, size - index);
        return new ListenerArray<>(loggerName, kind, name, shorter, logs);
    }

    /**
     * Returns the position of the listener attached with {@code attachment}, for a holder that keeps facts of its own
     * by position and drops the same one {@link #without} drops.
     *
     * @param attachment the failure log given to {@link #with}
     * @return its position, or -1 when it is not in this list
     */
    public int indexOf(ListenerFailureLog attachment) {
        for (int i = 0; i < failures.length; i++) {
            if (failures[i] == attachment) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Returns whether there is no listener.
     *
     * @return {@code true} when empty
     */
    public boolean isEmpty() {
        return listeners.length == 0;
    }

    /**
     * Returns the number of listeners.
     *
     * @return the size
     */
    public int size() {
        return listeners.length;
    }

    /**
     * Returns a listener, for a fan-out that walks by position (see {@link #failed}).
     *
     * @param index from 0 to {@link #size()} - 1, in attachment order
     * @return the listener
     */
    @SuppressWarnings("unchecked")
    public L get(int index) {
        return (L) listeners[index];
    }

    /**
     * Tells every listener, in order, isolating each one.
     *
     * @param event names the event in log messages
     * @param call what to call on each listener
     */
    public void each(String event, Consumer<? super L> call) {
        Object[] all = listeners;
        for (int i = 0; i < all.length; i++) {
            try {
                call.accept(get(i));
            } catch (Throwable failure) {
                failed(i, event, failure);
            }
        }
    }

    /**
     * Tells every listener, in order, isolating each one: the form that allocates nothing when {@code call} captures
     * nothing (a method reference such as {@code BulkheadListener::rejected}), the event's value being passed along.
     *
     * @param event names the event in log messages
     * @param call what to call on each listener, with {@code argument}
     * @param argument the event's value
     * @param <A> its type
     */
    public <A> void each(String event, BiConsumer<? super L, ? super A> call, A argument) {
        Object[] all = listeners;
        for (int i = 0; i < all.length; i++) {
            try {
                call.accept(get(i), argument);
            } catch (Throwable failure) {
                failed(i, event, failure);
            }
        }
    }

    /**
     * Logs that the listener at {@code index} threw, through its failure log: for a fan-out that cannot take the
     * form of {@link #each} (it passes each listener a value of its own, or gets one back, or must allocate nothing
     * with several values to pass) and so walks by position with {@link #get} and a {@code try} around each call.
     *
     * @param index the listener's position
     * @param event the event it threw on
     * @param failure what it threw
     */
    public void failed(int index, String event, Throwable failure) {
        failures[index].log(System.getLogger(loggerName), listeners[index], kind + "'" + name + "'", event, failure);
    }

    @Override
    public String toString() {
        return "ListenerArray" + List.of(listeners);
    }
}
