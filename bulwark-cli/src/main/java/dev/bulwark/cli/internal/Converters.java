package dev.bulwark.cli.internal;

import dev.bulwark.cli.internal.sim.Distribution;
import dev.bulwark.cli.internal.sim.Durations;
import dev.bulwark.cli.internal.sim.Rate;
import java.time.Duration;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * The command line's value converters. Each rejects bad input with a {@link TypeConversionException} whose
 * message states the accepted form and the value given; {@link OneLineErrors} prefixes the flag's name.
 */
final class Converters {

    private Converters() {
    }

    /** A whole number of at least 1: {@code --limit}, {@code --clients}, {@code --downstream-capacity}. */
    static final class PositiveInteger implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return wholeNumber(value, 1, Integer.MAX_VALUE);
        }
    }

    /**
     * A population, {@code --tenants} or {@code --clients}: 1 to {@value #MAX_POPULATION}. Every tenant is a
     * partition, an arrival stream and a tally, and every client a scheduled task with its own random streams, all
     * made before the run starts: 100 million of either filled the heap of a 24 GiB machine and ended in an
     * {@code OutOfMemoryError} instead of an answer. A hundred thousand is far beyond what a per-tenant report can
     * show, and a thousandth of what failed.
     */
    static final class Population implements ITypeConverter<Integer> {
        static final int MAX_POPULATION = 100_000;

        @Override
        public Integer convert(String value) {
            return wholeNumber(value, 1, MAX_POPULATION);
        }
    }

    /**
     * Retries per call, {@code --retry}: 1 to {@value #MAX_RETRIES}. Retries at once of a refused call happen at one
     * instant of virtual time, all refused again while the queue stays full: a huge N would spin the event loop for
     * minutes without changing any figure.
     */
    static final class Retries implements ITypeConverter<Integer> {
        static final int MAX_RETRIES = 100;

        @Override
        public Integer convert(String value) {
            return wholeNumber(value, 1, MAX_RETRIES);
        }
    }

    /** A whole number of at least 0: {@code --queue}. */
    static final class NonNegativeInteger implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return wholeNumber(value, 0, Integer.MAX_VALUE);
        }
    }

    /**
     * Parses a whole number from {@code minimum} to {@code maximum}. A number beyond an {@code int} gets the bounds
     * in its message: "at least 1" alone would read as if 99999999999 were too small.
     */
    private static int wholeNumber(String value, int minimum, int maximum) {
        String atLeast = "a whole number of at least " + minimum;
        String between = "a whole number from " + minimum + " to " + maximum;
        String trimmed = value.trim();
        int number;
        try {
            number = Integer.parseInt(trimmed);
        } catch (NumberFormatException e) {
            if (trimmed.matches("[+-]?[0-9]+")) {
                boolean negative = trimmed.startsWith("-");
                throw new TypeConversionException("expected " + (negative ? atLeast : between) + ", got '" + value
                        + "'" + (negative ? "" : " (too large)"));
            }
            throw new TypeConversionException("expected " + atLeast + ", got '" + value + "'");
        }
        if (number < minimum) {
            throw new TypeConversionException("expected " + atLeast + ", got '" + value + "'");
        }
        if (number > maximum) {
            throw new TypeConversionException("expected " + between + ", got '" + value + "'");
        }
        return number;
    }

    /** A seed: any whole number that fits in 64 bits. */
    static final class Seed implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            try {
                return Long.parseLong(value.trim());
            } catch (NumberFormatException e) {
                throw new TypeConversionException("expected a whole number such as 42, got '" + value + "'");
            }
        }
    }

    /** A non-negative decimal number: {@code --degradation}. */
    static final class NonNegativeDecimal implements ITypeConverter<Double> {
        @Override
        public Double convert(String value) {
            double number;
            try {
                number = Double.parseDouble(value.trim());
            } catch (NumberFormatException e) {
                number = Double.NaN;
            }
            if (!(number >= 0) || Double.isInfinite(number)) {
                throw new TypeConversionException("expected a number of at least 0 such as 1 or 0.5, got '" + value
                        + "'");
            }
            return number;
        }
    }

    /** A positive duration: {@code --duration}, {@code --max-wait}, {@code --target-p99}. */
    static final class PositiveDuration implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            Duration duration = duration(value);
            if (duration.isZero()) {
                throw new TypeConversionException("expected " + Durations.FORM + " (more than zero), got '" + value
                        + "'");
            }
            return duration;
        }
    }

    /** A maximum wait: a positive duration, or {@code none} for no time bound (converted to {@code null}). */
    static final class MaxWait implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            if (value.trim().equalsIgnoreCase("none")) {
                return null;
            }
            String accepted = Durations.FORM + " (more than zero), or none";
            Duration duration;
            try {
                duration = Durations.parse(value);
            } catch (IllegalArgumentException e) {
                // The parser's message, with this flag's accepted forms, keeping its reason (such as "too long").
                throw new TypeConversionException(e.getMessage().replace(Durations.FORM, accepted));
            }
            if (duration.isZero()) {
                throw new TypeConversionException("expected " + accepted + ", got '" + value + "'");
            }
            return duration;
        }
    }

    /** A zero or positive duration: {@code --drain}. */
    static final class NonNegativeDuration implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            return duration(value);
        }
    }

    private static Duration duration(String value) {
        try {
            return Durations.parse(value);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
        }
    }

    /** An arrival rate: {@code --rate}. */
    static final class RateConverter implements ITypeConverter<Rate> {
        @Override
        public Rate convert(String value) {
            try {
                return Rate.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** A distribution of durations: {@code --service-time}, {@code --think-time}. */
    static final class DistributionConverter implements ITypeConverter<Distribution> {
        @Override
        public Distribution convert(String value) {
            try {
                return Distribution.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /**
     * The work per call, {@code --service-time}: a distribution whose mean is more than zero (a downstream that takes
     * no time has no unloaded time to compare with, and every slowdown would be infinite).
     */
    static final class ServiceTimeConverter implements ITypeConverter<Distribution> {
        @Override
        public Distribution convert(String value) {
            Distribution work = new DistributionConverter().convert(value);
            if (!(work.meanNanos() >= 1.0)) {
                throw new TypeConversionException("expected a service time of more than zero, such as exp:20ms, "
                        + "got '" + value + "' (its mean is zero)");
            }
            return work;
        }
    }

    /** A percentage from 0 to 100, with or without the sign: {@code --max-reject 1%}. Returns a fraction. */
    static final class Percentage implements ITypeConverter<Double> {
        @Override
        public Double convert(String value) {
            String number = value.trim();
            if (number.endsWith("%")) {
                number = number.substring(0, number.length() - 1).trim();
            }
            double percent;
            try {
                percent = Double.parseDouble(number);
            } catch (NumberFormatException e) {
                percent = Double.NaN;
            }
            if (!(percent >= 0 && percent <= 100)) {
                throw new TypeConversionException("expected a percentage from 0% to 100% such as 1% or 0.5%, got '"
                        + value + "'");
            }
            return percent / 100.0;
        }
    }

    /** Lower-case enum names on the command line. */
    static String lower(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT);
    }
}
