package dev.bulwark.cli.internal.sim;

import java.time.Duration;
import java.util.Optional;

/**
 * What a sweep looks for: an end-to-end p99 no higher than a target, and no more than a share of calls left
 * unserved (rejected, timed out or cancelled). Either may be absent. Immutable.
 *
 * @param p99 the highest acceptable p99 of completed calls' end-to-end latency, or {@code null}
 * @param maxUnserved the highest acceptable share of unserved calls, from 0 to 1, or {@code null}
 */
public record SweepTargets(Duration p99, Double maxUnserved) {

    /**
     * Checks the targets.
     *
     * @throws IllegalArgumentException when {@code p99} is not positive or {@code maxUnserved} is outside 0..1
     */
    public SweepTargets {
        if (p99 != null && (p99.isZero() || p99.isNegative())) {
            throw new IllegalArgumentException("p99 must be positive but was " + p99);
        }
        if (maxUnserved != null && !(maxUnserved >= 0 && maxUnserved <= 1)) {
            throw new IllegalArgumentException("maxUnserved must be from 0 to 1 but was " + maxUnserved);
        }
    }

    /**
     * Returns whether any target was given.
     *
     * @return {@code true} when there is something to meet
     */
    public boolean any() {
        return p99 != null || maxUnserved != null;
    }

    /**
     * Returns the p99 target.
     *
     * @return the target, or empty
     */
    public Optional<Duration> p99Target() {
        return Optional.ofNullable(p99);
    }

    /**
     * Returns the unserved-share target.
     *
     * @return the target, or empty
     */
    public Optional<Double> maxUnservedTarget() {
        return Optional.ofNullable(maxUnserved);
    }

    /**
     * Returns whether a run meets the p99 target (a run with no completed call does not).
     *
     * @param result the run
     * @return {@code true} when there is no p99 target or the run's p99 is within it
     */
    public boolean meetsP99(SimulationResult result) {
        return p99 == null || result.endToEnd().p99() <= p99.toNanos() / 1e6;
    }

    /**
     * Returns whether a run meets the unserved-share target.
     *
     * @param result the run
     * @return {@code true} when there is no such target or the run's unserved share is within it
     */
    public boolean meetsUnserved(SimulationResult result) {
        return maxUnserved == null || result.counts().unservedShare() <= maxUnserved;
    }

    /**
     * Returns whether a run meets every target given.
     *
     * @param result the run
     * @return {@code true} when it meets them all
     */
    public boolean metBy(SimulationResult result) {
        return meetsP99(result) && meetsUnserved(result);
    }
}
