package dev.bulwark.internal.binding;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * What both metrics back ends observe of a fallback, and when: each failure it turned into a value, counted by the
 * failure's class, in a count of the back end's ({@code C}: a Micrometer counter, an adder read at collection) made
 * the first time that class is seen. Closing stops counting for good: no count is made after {@link #close()}, and
 * those made before are forgotten (the back end removes its series).
 *
 * <p>Thread-safe. Invariant: a count is made and added only under the lock and only while not closed, and closing
 * sets {@code closed} and forgets the counts under the same lock, so no count outlives the close. Counting a class
 * already seen takes no lock and allocates nothing.
 *
 * @param <C> the back end's count of one exception class
 */
public final class FallbackCounts<C> {

    private final Function<Class<?>, C> create;
    private final Map<Class<?>, C> counts = new ConcurrentHashMap<>();
    private final ReentrantLock lock = new ReentrantLock();
    private volatile boolean closed;

    /**
     * Creates the counts of one fallback, none made yet.
     *
     * @param create makes (and registers) the count of one exception class; called at most once per class, under a
     *     lock, never after {@link #close()}
     */
    public FallbackCounts(Function<Class<?>, C> create) {
        this.create = Objects.requireNonNull(create, "create");
    }

    /**
     * Returns the count to increment for one fallback caused by {@code failure}, made the first time its class is
     * seen.
     *
     * @param failure the failure turned into a value
     * @return the count of its class, or {@code null} once closed (then nothing is counted)
     * @throws NullPointerException when {@code failure} is {@code null}
     */
    public C of(Throwable failure) {
        Class<?> type = Objects.requireNonNull(failure, "failure").getClass();
        C count = counts.get(type);
        return count != null ? count : make(type);
    }

    private C make(Class<?> type) {
        lock.lock();
        try {
            return closed ? null : counts.computeIfAbsent(type, create);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Passes every count made so far to {@code action} (a back end reading them at collection).
     *
     * @param action what to do with each
     */
    public void forEach(Consumer<? super C> action) {
        counts.values().forEach(action);
    }

    /**
     * Returns whether {@link #close()} was called.
     *
     * @return {@code true} once closed
     */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Stops counting and forgets the counts.
     *
     * @return {@code true} for the call that closed, {@code false} when already closed (the back end then has
     *     nothing to remove)
     */
    public boolean close() {
        lock.lock();
        try {
            if (closed) {
                return false;
            }
            closed = true;
            counts.clear();
            return true;
        } finally {
            lock.unlock();
        }
    }
}
