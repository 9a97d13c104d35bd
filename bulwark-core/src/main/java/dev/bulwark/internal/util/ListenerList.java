package dev.bulwark.internal.util;

import dev.bulwark.Subscription;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The listeners of one policy, attachable and detachable at run time, each told of an event isolated from the call
 * and from the others (see {@link ListenerArray}: a listener that throws is logged, its first failure at WARNING, then
 * at DEBUG, and never changes the outcome).
 *
 * <p><b>Invariant (copy-on-write).</b> {@code current} is never mutated, only replaced by compare-and-set with a
 * copy made from the array it replaces ({@link ListenerArray#with}, {@link ListenerArray#without}); an attach or a
 * detach that loses the race copies the winner's array and tries again, so no change is lost and none is applied
 * twice. A fan-out reads {@code current} once and walks that array, so a listener attached or detached while
 * events are told misses or still hears those events, but every event reaches each listener at most once and in
 * attachment order. {@link #isEmpty()} is the same one volatile read and a length check.
 *
 * <p>Thread-safe and lock-free.
 *
 * @param <L> the listener type
 */
public final class ListenerList<L> {

    private static final VarHandle CURRENT =
            VarHandles.field(MethodHandles.lookup(), "current", ListenerArray.class);

    /** Never mutated, only replaced (see the invariant). */
    private volatile ListenerArray<L> current;

    /**
     * Creates the listener list of a policy.
     *
     * @param loggerName the logger a failing listener is logged to
     * @param kind what the policy is in log messages, followed by a space ({@code "bulkhead "}), or {@code ""}
     * @param name the policy's name, quoted in log messages
     * @param initial the listeners given to the builder, in order
     * @throws NullPointerException when a listener is {@code null}
     */
    public ListenerList(String loggerName, String kind, String name, List<? extends L> initial) {
        this.current = ListenerArray.of(loggerName, kind, name, initial);
    }

    /**
     * Returns whether no listener is attached. One volatile read and a length check.
     *
     * @return {@code true} when there is no listener
     */
    public boolean isEmpty() {
        return current.isEmpty();
    }

    /**
     * Attaches a listener, last in order.
     *
     * @param listener the listener
     * @return the subscription that detaches it (idempotent; attaching the same listener twice makes two
     *         attachments, each detached by its own subscription)
     * @throws NullPointerException when {@code listener} is {@code null}
     */
    public Subscription add(L listener) {
        ListenerFailureLog attachment = new ListenerFailureLog();
        ListenerArray<L> before;
        ListenerArray<L> after;
        do {
            before = current;
            after = before.with(listener, attachment);
        } while (!CURRENT.compareAndSet(this, before, after));
        return () -> remove(attachment);
    }

    private void remove(ListenerFailureLog attachment) {
        ListenerArray<L> before;
        ListenerArray<L> after;
        do {
            before = current;
            after = before.without(attachment);
        } while (before != after && !CURRENT.compareAndSet(this, before, after));
    }

    /**
     * Tells every listener attached now, in order, isolating each one.
     *
     * @param event names the event in log messages
     * @param call what to call on each listener
     */
    public void each(String event, Consumer<? super L> call) {
        current.each(event, call);
    }

    /**
     * Tells every listener attached now, in order, isolating each one; allocates nothing when {@code call} captures
     * nothing.
     *
     * @param event names the event in log messages
     * @param call what to call on each listener, with {@code argument}
     * @param argument the event's value
     * @param <A> its type
     */
    public <A> void each(String event, BiConsumer<? super L, ? super A> call, A argument) {
        current.each(event, call, argument);
    }

    @Override
    public String toString() {
        return current.toString();
    }
}
