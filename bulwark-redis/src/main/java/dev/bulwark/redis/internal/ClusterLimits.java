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
}
