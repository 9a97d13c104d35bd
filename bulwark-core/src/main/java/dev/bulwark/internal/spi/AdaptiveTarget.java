package dev.bulwark.internal.spi;

/**
 * What an adaptive limit moves: the limit it reads and the compare-and-set that changes it. The in-process
 * bulkhead implements it over its own limit; the cluster-wide bulkhead over the limit stored in Redis, where the
 * change travels asynchronously and may lose to another instance's.
 *
 * <p>Implementations must be thread-safe and must never block or run user code in either method: both are called
 * on the thread that releases a call, by the limit's window closer, outside any lock.
 */
public interface AdaptiveTarget {

    /**
     * Returns the limit as the target currently knows it: the value a decision is based on and passes back as
     * {@code expected}.
     *
     * @return at least 1
     */
    int maxConcurrency();

    /**
     * Moves the limit to {@code next}, but only if it still is {@code expected}, so that concurrent decisions based
     * on the same value do not compound: at most one of them wins.
     *
     * @param expected the limit the decision was based on
     * @param next the new limit, within the adaptive limit's range
     * @return whether the change was made (or, for a target that applies it asynchronously, sent)
     */
    boolean adaptLimit(int expected, int next);
}
