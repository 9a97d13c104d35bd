package dev.bulwark.internal.util;

import java.time.Duration;

/**
 * Argument checks shared by builders and run-time changes, in-process and on Redis, so that every entry point
 * words its errors alike: the parameter's name, the rule, and the value that broke it. Stateless.
 */
public final class Arguments {

    /** Durations at or beyond this many nanoseconds (about 146 years) are treated as "no time bound". */
    private static final long UNBOUNDED_NANOS = 1L << 62;

    private Arguments() {
    }

    /**
     * Checks a concurrency limit.
     *
     * @param maxConcurrency the value to check
     * @return the value
     * @throws IllegalArgumentException when it is less than 1
     */
    public static int requireMaxConcurrency(int maxConcurrency) {
        if (maxConcurrency < 1) {
            throw new IllegalArgumentException("maxConcurrency must be at least 1 but was " + maxConcurrency);
        }
        return maxConcurrency;
    }

    /**
     * Checks a queue limit.
     *
     * @param maxQueue the value to check
     * @return the value
     * @throws IllegalArgumentException when it is negative
     */
    public static int requireMaxQueue(int maxQueue) {
        if (maxQueue < 0) {
            throw new IllegalArgumentException("maxQueue must not be negative but was " + maxQueue);
        }
        return maxQueue;
    }

    /**
     * Checks that a duration parameter is positive.
     *
     * @param value the value to check, not {@code null}
     * @param name the parameter's name for the message
     * @return the value
     * @throws IllegalArgumentException when it is zero or negative
     */
    public static Duration requirePositive(Duration value, String name) {
        if (value.isZero() || value.isNegative()) {
            throw new IllegalArgumentException(name + " must be positive but was " + value);
        }
        return value;
    }

    /**
     * Checks a policy name.
     *
     * @param name the value to check
     * @return the name
     * @throws NullPointerException when it is {@code null}
     * @throws IllegalArgumentException when it is blank
     */
    public static String requireName(String name) {
        java.util.Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("name must not be blank but was '" + name + "'");
        }
        return name;
    }

    /**
     * Converts a positive duration to nanoseconds for deadline arithmetic, or to 0 ("no bound") when it is
     * {@code null} or so long that adding it to a clock reading could overflow.
     *
     * @param value a positive duration or {@code null}
     * @return nanoseconds in {@code (0, 2^62)}, or 0 for no bound
     */
    public static long boundedNanos(Duration value) {
        if (value == null || value.getSeconds() >= UNBOUNDED_NANOS / 1_000_000_000L) {
            return 0L;
        }
        long nanos = value.toNanos();
        return nanos >= UNBOUNDED_NANOS ? 0L : nanos;
    }
}
