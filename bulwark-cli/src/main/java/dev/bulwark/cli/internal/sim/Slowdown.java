package dev.bulwark.cli.internal.sim;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * A period during which the simulated downstream works slower than its normal speed, as a database does while a
 * competing heavy query or a held lock takes part of it: from {@link #from()} to {@link #until()} after the run's
 * start every call in flight progresses at {@link #speed()} times its normal rate, then at the normal rate again.
 * Work done before the change is kept, so a call that spans the period takes longer by what it spent in it. Speed 0
 * pauses the downstream (a garbage-collection pause). Immutable.
 *
 * @param from when the period starts, after the run's start; zero or positive
 * @param until when it ends, after {@code from}
 * @param speed the fraction of the normal speed meanwhile, from 0 (paused) to 1
 */
public record Slowdown(Duration from, Duration until, double speed) {

    /**
     * Checks the period.
     *
     * @throws NullPointerException when {@code from} or {@code until} is {@code null}
     * @throws IllegalArgumentException when {@code from} is negative, {@code until} is not after {@code from}, or
     *     {@code speed} is outside [0, 1]
     */
    public Slowdown {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(until, "until");
        if (from.isNegative()) {
            throw new IllegalArgumentException("from must not be negative but was " + from);
        }
        if (until.compareTo(from) <= 0) {
            throw new IllegalArgumentException("until must be after from (" + from + ") but was " + until);
        }
        if (!(speed >= 0 && speed <= 1)) {
            throw new IllegalArgumentException("speed must be within [0, 1] but was " + speed);
        }
    }

    /**
     * Describes the period for a report.
     *
     * @return such as {@code "speed 0.64 from 10s to 30s"} (the speed to two places)
     */
    public String describe() {
        return String.format(Locale.ROOT, "speed %.2f from %s to %s", speed, Durations.format(from),
                Durations.format(until));
    }
}
