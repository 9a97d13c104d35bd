package dev.bulwark.cli.internal.sim;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A rate of calls, such as {@code 2000/s}. Immutable.
 *
 * @param perSecond calls per second, positive and finite
 */
public record Rate(double perSecond) {

    /** The accepted form, quoted in error messages. */
    public static final String FORM = "a rate such as 2000/s, 120000/m or 5/ms";

    private static final Pattern RATE =
            Pattern.compile("([0-9]+(?:\\.[0-9]+)?)\\s*(?:/\\s*(ms|s|m|h))?", Pattern.CASE_INSENSITIVE);

    /**
     * Checks the rate.
     *
     * @throws IllegalArgumentException when {@code perSecond} is not positive and finite
     */
    public Rate {
        if (!(perSecond > 0) || Double.isInfinite(perSecond)) {
            throw new IllegalArgumentException("rate must be positive but was " + perSecond + "/s");
        }
    }

    /**
     * Parses a rate: a positive number, optionally followed by {@code /ms}, {@code /s} (the default),
     * {@code /m} or {@code /h}.
     *
     * @param text the text to parse
     * @return the rate
     * @throws IllegalArgumentException when {@code text} is not of that form or not positive, naming the form
     * @throws NullPointerException when {@code text} is {@code null}
     */
    public static Rate parse(String text) {
        Matcher matcher = RATE.matcher(text.trim());
        if (!matcher.matches()) {
            throw new IllegalArgumentException("expected " + FORM + ", got '" + text + "'");
        }
        double amount = Double.parseDouble(matcher.group(1));
        String unit = matcher.group(2) == null ? "s" : matcher.group(2).toLowerCase(Locale.ROOT);
        double perSecond;
        switch (unit) {
            case "ms":
                perSecond = amount * 1000;
                break;
            case "m":
                perSecond = amount / 60;
                break;
            case "h":
                perSecond = amount / 3600;
                break;
            default:
                perSecond = amount;
        }
        if (!(perSecond > 0) || Double.isInfinite(perSecond)) {
            throw new IllegalArgumentException("expected " + FORM + " (more than zero), got '" + text + "'");
        }
        return new Rate(perSecond);
    }

    /**
     * Returns the mean time between two calls at this rate.
     *
     * @return nanoseconds, at least 1
     */
    public double meanIntervalNanos() {
        return Math.max(1.0, 1e9 / perSecond);
    }

    /**
     * Writes the rate per second, as {@link #parse} reads it.
     *
     * @return for example {@code 2000/s} or {@code 0.5/s}
     */
    @Override
    public String toString() {
        if (perSecond == Math.rint(perSecond)) {
            return String.format(Locale.ROOT, "%.0f/s", perSecond);
        }
        return new BigDecimal(perSecond).round(new MathContext(4)).stripTrailingZeros()
                .toPlainString() + "/s";
    }
}
