package dev.bulwark.redis.internal;

import java.util.List;

/**
 * The cluster-wide limits as this instance last saw them in Redis. Immutable.
 *
 * @param maxConcurrency the concurrency limit
 * @param maxQueue the queue limit
 * @param maxWaitNanos the maximum wait in nanoseconds, 0 for no bound
 */
public record ClusterLimits(int maxConcurrency, int maxQueue, long maxWaitNanos) {

    /** Reads the three limits from a script reply, starting at {@code offset}. */
    static ClusterLimits parse(List<Object> reply, int offset) {
        return new ClusterLimits(Replies.intAt(reply, offset), Replies.intAt(reply, offset + 1),
                Replies.longAt(reply, offset + 2));
    }

    /**
     * The script argument ({@code ARGV[1]}) that initializes the config hash when Redis has lost it:
     * {@code maxConcurrency:maxQueue:maxWaitNanos}, one argument rather than three because every call sends it.
     */
    String asArgument() {
        return maxConcurrency + ":" + maxQueue + ":" + maxWaitNanos;
    }

    /**
     * Written out, not the record's generated one: every script compares the limits it last saw (see
     * {@code ScriptRunner}), and the generated method links through {@code ObjectMethods}' bootstrap on its first
     * use, on the caller's thread. That made the first admission of a fresh JVM load 83 classes and take 30 to
     * 60 ms of CPU (40 to 360 ms on a loaded machine) where a warm one takes a round trip (issue 37,
     * {@code RedisFirstCallsTest}).
     */
    @Override
    public boolean equals(Object other) {
        return other instanceof ClusterLimits limits && limits.maxConcurrency == maxConcurrency
                && limits.maxQueue == maxQueue && limits.maxWaitNanos == maxWaitNanos;
    }

    /** Written out with {@link #equals(Object)}, for the same reason. */
    @Override
    public int hashCode() {
        return (31 * maxConcurrency + maxQueue) * 31 + Long.hashCode(maxWaitNanos);
    }
}
