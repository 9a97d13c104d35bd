package dev.bulwark.internal.util;

import java.time.Duration;
import java.util.Locale;

/**
 * Writes a wait in milliseconds for a message a person reads, alike in every module: whole milliseconds (truncated,
 * as {@link Duration#toMillis()}) for a wait of one millisecond or more, and three decimals for a shorter one that
 * is not zero, so that a wait that happened never reads as {@code 0} (437 µs is {@code 0.437}, 1 ns is
 * {@code 0.001}). The text is the same in every locale (no grouping, a {@code .} for the decimal point).
 * Stateless and thread-safe.
 */
public final class MillisText {

    private static final long NANOS_PER_MILLI = 1_000_000L;

    private MillisText() {
    }

    /**
     * Writes a wait given in nanoseconds.
     *
     * @param nanos the wait; zero or less is written {@code 0}
     * @return the milliseconds as text, without a unit, such as {@code 250} or {@code 0.437}
     */
    public static String ofNanos(long nanos) {
        if (nanos <= 0) {
            return "0";
        }
        if (nanos >= NANOS_PER_MILLI) {
            return Long.toString(nanos / NANOS_PER_MILLI);
        }
        // Locale.ROOT: the same digits and decimal point everywhere. Built only for a message, never on a call's path.
        return String.format(Locale.ROOT, "0.%03d", Math.max(1L, nanos / 1_000L));
    }

    /**
     * Writes a wait given as a duration; a duration too long for nanoseconds is written in whole milliseconds.
     *
     * @param wait the wait; zero or negative is written {@code 0}
     * @return the milliseconds as text, without a unit, such as {@code 250} or {@code 0.437}
     * @throws NullPointerException when {@code wait} is {@code null}
     * @throws ArithmeticException when the wait does not fit a {@code long} of milliseconds
     */
    public static String of(Duration wait) {
        // Under a second the nanoseconds fit a long; from a second on only whole milliseconds are written anyway.
        return wait.getSeconds() > 0 ? Long.toString(wait.toMillis())
                : ofNanos(wait.isNegative() ? 0L : wait.getNano());
    }
}
