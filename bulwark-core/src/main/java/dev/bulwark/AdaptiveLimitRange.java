package dev.bulwark;

import java.util.function.Predicate;

/**
 * The settings every {@link AdaptiveLimit} shares (range, window size, drop predicate), held once here rather
 * than in each algorithm's value class. Package-private: the public types are the sealed interface's
 * implementations, which inherit these accessors as their own.
 */
abstract class AdaptiveLimitRange {
    private final int minLimit;
    private final int maxLimit;
    private final int windowSamples;
    private final Predicate<? super Throwable> dropWhen;

    AdaptiveLimitRange(AdaptiveLimit.Settings<?> settings) {
        this.minLimit = settings.minLimit;
        this.maxLimit = settings.maxLimit;
        this.windowSamples = settings.windowSamples;
        this.dropWhen = settings.dropWhen;
    }

    /**
     * Returns the lowest the limit goes.
     *
     * @return at least 1
     */
    public final int minLimit() {
        return minLimit;
    }

    /**
     * Returns the highest the limit goes.
     *
     * @return at least {@link #minLimit()}
     */
    public final int maxLimit() {
        return maxLimit;
    }

    /**
     * Returns the fewest samples a decision window holds.
     *
     * @return at least 1
     */
    public int windowSamples() {
        return windowSamples;
    }

    /**
     * Returns which failures of {@code call}/{@code callAsync} count as drops (overload) rather than being ignored.
     *
     * @return the predicate
     */
    public final Predicate<? super Throwable> dropWhen() {
        return dropWhen;
    }
}
