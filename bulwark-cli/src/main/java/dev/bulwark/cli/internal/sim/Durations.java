package dev.bulwark.cli.internal.sim;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads and writes durations the way a person types them: {@code 20ms}, {@code 1.5s}, {@code 250us},
 * {@code 2m}. Stateless and thread-safe.
 */
public final class Durations {

    /** The accepted form, quoted in error messages. */
    public static final String FORM = "a duration such as 20ms, 1.5s, 250us or 2m";

    private static final Pattern DURATION =
            Pattern.compile("([0-9]+(?:\\.[0-9]+)?)\\s*(ns|us|µs|ms|s|m|h)", Pattern.CASE_INSENSITIVE);

    private Durations() {
    }

    /**
     * Parses a duration with a unit: {@code ns}, {@code us} (or {@code µs}), {@code ms}, {@code s}, {@code m}
     * or {@code h}. A fraction is allowed ({@code 1.5s}); the result is rounded to whole nanoseconds.
     *
     * @param text the text to parse
     * @return the duration, zero or positive
     * @throws IllegalArgumentException when {@code text} is not of that form, naming the accepted form
     * @throws NullPointerException when {@code text} is {@code null}
     */
    public static Duration parse(String text) {
        Matcher matcher = DURATION.matcher(text.trim());
        if (!matcher.matches()) {
            throw new IllegalArgumentException("expected " + FORM + ", got '" + text + "'");
        }
        BigDecimal amount = new BigDecimal(matcher.group(1));
        long nanosPerUnit = nanosPerUnit(matcher.group(2).toLowerCase(Locale.ROOT));
        BigDecimal nanos = amount.multiply(BigDecimal.valueOf(nanosPerUnit));
        if (nanos.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
            throw new IllegalArgumentException("expected " + FORM + ", got '" + text + "' (too long)");
        }
        return Duration.ofNanos(nanos.setScale(0, RoundingMode.HALF_UP).longValueExact());
    }

    private static long nanosPerUnit(String unit) {
        switch (unit) {
            case "ns":
                return 1L;
            case "us":
            case "µs":
                return 1_000L;
            case "ms":
                return 1_000_000L;
            case "s":
                return 1_000_000_000L;
            case "m":
                return 60_000_000_000L;
            default:
                return 3_600_000_000_000L;
        }
    }

    /**
     * Writes a duration in the form {@link #parse} reads, in the largest unit that keeps it short and exact to
     * three significant places: {@code 20ms}, {@code 1.5s}, {@code 250us}.
     *
     * @param duration a zero or positive duration
     * @return the compact text
     */
    public static String format(Duration duration) {
        long nanos = duration.toNanos();
        if (nanos == 0) {
            return "0ms";
        }
        if (nanos % 3_600_000_000_000L == 0) {
            return nanos / 3_600_000_000_000L + "h";
        }
        if (nanos % 60_000_000_000L == 0) {
            return nanos / 60_000_000_000L + "m";
        }
        if (nanos >= 1_000_000_000L) {
            return decimal(nanos / 1e9) + "s";
        }
        if (nanos >= 1_000_000L) {
            return decimal(nanos / 1e6) + "ms";
        }
        if (nanos >= 1_000L) {
            return decimal(nanos / 1e3) + "us";
        }
        return nanos + "ns";
    }

    /**
     * Writes a number of milliseconds for people, to three significant digits, with the unit: milliseconds
     * below one second, seconds from there.
     *
     * @param millis the amount in milliseconds
     * @return for example {@code 3.27 ms}, {@code 84.1 ms}, {@code 412 ms}, {@code 3.23 s} or {@code 12.4 s};
     *     {@code -} for {@code NaN}
     */
    public static String humanMillis(double millis) {
        if (Double.isNaN(millis)) {
            return "-";
        }
        if (millis >= 100_000) {
            return String.format(Locale.ROOT, "%.0f s", millis / 1000);
        }
        if (millis >= 10_000) {
            return String.format(Locale.ROOT, "%.1f s", millis / 1000);
        }
        if (millis >= 1_000) {
            return String.format(Locale.ROOT, "%.2f s", millis / 1000);
        }
        if (millis >= 100) {
            return String.format(Locale.ROOT, "%.0f ms", millis);
        }
        if (millis >= 10) {
            return String.format(Locale.ROOT, "%.1f ms", millis);
        }
        return String.format(Locale.ROOT, "%.2f ms", millis);
    }

    private static String decimal(double value) {
        BigDecimal rounded = new BigDecimal(value).round(new MathContext(3));
        return rounded.stripTrailingZeros().toPlainString();
    }
}
