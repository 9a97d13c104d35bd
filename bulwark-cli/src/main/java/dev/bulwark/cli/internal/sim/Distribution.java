package dev.bulwark.cli.internal.sim;

import java.time.Duration;
import java.util.Locale;
import java.util.random.RandomGenerator;

/**
 * A distribution of durations (service times, think times) that can be sampled reproducibly from a seeded
 * random generator. Immutable and thread-safe; the generator passed to {@link #sampleNanos} is the caller's.
 *
 * <p>Three shapes, written as on the command line:
 * <ul>
 *   <li>{@code fixed:20ms} (or just {@code 20ms}): always the same;</li>
 *   <li>{@code exp:20ms}: exponential with that mean (memoryless; its p99 is 4.6 times the mean);</li>
 *   <li>{@code lognormal:median=20ms,p99=200ms}: log-normal with that median and 99th percentile, the usual
 *       shape of real service times (most calls quick, a long tail);</li>
 *   <li>{@code pareto:mean=20ms,shape=2.5}: Pareto, a heavy tail;</li>
 *   <li>{@code mix:fast=5ms,slow=100ms,share=10%}: two kinds of calls, as with cache hits and misses: a share of
 *       slow ones (exponential with the slow mean), the rest fast (exponential with the fast mean).</li>
 * </ul>
 */
public sealed interface Distribution permits Distribution.Fixed, Distribution.Exponential, Distribution.LogNormal,
        Distribution.Pareto, Distribution.Mixture {

    /** The accepted forms, quoted in error messages. */
    String FORM = "fixed:20ms, exp:20ms, lognormal:median=20ms,p99=200ms, pareto:mean=20ms,shape=2.5 or "
            + "mix:fast=5ms,slow=100ms,share=10%";

    /** The longest sample: an hour, so that a wild tail cannot overflow time arithmetic. */
    long MAX_SAMPLE_NANOS = 3_600_000_000_000L;

    /**
     * Draws one duration.
     *
     * @param random the generator to draw from; the same sequence of draws gives the same samples
     * @return nanoseconds, from 0 to {@link #MAX_SAMPLE_NANOS}
     */
    long sampleNanos(RandomGenerator random);

    /**
     * Returns the mean of the distribution.
     *
     * @return nanoseconds
     */
    double meanNanos();

    /**
     * Returns the distribution written as {@link #parse} reads it.
     *
     * @return for example {@code exp:20ms}
     */
    String spec();

    /**
     * Parses a distribution: {@code fixed:D}, a bare duration {@code D} (the same), {@code exp:D} or
     * {@code lognormal:median=D,p99=D} where {@code D} is a duration such as {@code 20ms}.
     *
     * @param text the text to parse
     * @return the distribution
     * @throws IllegalArgumentException when {@code text} is not one of those forms, naming them
     * @throws NullPointerException when {@code text} is {@code null}
     */
    static Distribution parse(String text) {
        String trimmed = text.trim();
        int colon = trimmed.indexOf(':');
        if (colon < 0) {
            return new Fixed(duration(trimmed, text));
        }
        String kind = trimmed.substring(0, colon).trim().toLowerCase(Locale.ROOT);
        String arguments = trimmed.substring(colon + 1).trim();
        switch (kind) {
            case "fixed":
                return new Fixed(duration(arguments, text));
            case "exp":
            case "exponential":
                Duration mean = duration(arguments, text);
                if (mean.isZero()) {
                    throw invalid(text, "the mean must be more than zero");
                }
                return new Exponential(mean);
            case "lognormal":
                return parseLogNormal(arguments, text);
            case "pareto":
                return parsePareto(arguments, text);
            case "mix":
                return parseMixture(arguments, text);
            default:
                throw invalid(text, "unknown shape '" + kind + "'");
        }
    }

    private static Distribution parseLogNormal(String arguments, String text) {
        Duration median = null;
        Duration p99 = null;
        for (String part : arguments.split(",")) {
            int equals = part.indexOf('=');
            if (equals < 0) {
                throw invalid(text, "lognormal takes median=D,p99=D");
            }
            String key = part.substring(0, equals).trim().toLowerCase(Locale.ROOT);
            Duration value = duration(part.substring(equals + 1).trim(), text);
            if (key.equals("median") && median == null) {
                median = value;
            } else if (key.equals("p99") && p99 == null) {
                p99 = value;
            } else {
                throw invalid(text, "lognormal takes median=D,p99=D");
            }
        }
        if (median == null || p99 == null) {
            throw invalid(text, "lognormal takes median=D,p99=D");
        }
        if (median.isZero() || p99.compareTo(median) <= 0) {
            throw invalid(text, "lognormal needs 0 < median < p99");
        }
        return new LogNormal(median, p99);
    }

    private static Distribution parsePareto(String arguments, String text) {
        Duration mean = null;
        Double shape = null;
        for (String part : arguments.split(",")) {
            int equals = part.indexOf('=');
            if (equals < 0) {
                throw invalid(text, "pareto takes mean=D,shape=A");
            }
            String key = part.substring(0, equals).trim().toLowerCase(Locale.ROOT);
            String value = part.substring(equals + 1).trim();
            if (key.equals("mean") && mean == null) {
                mean = duration(value, text);
            } else if (key.equals("shape") && shape == null) {
                try {
                    shape = Double.parseDouble(value);
                } catch (NumberFormatException e) {
                    throw invalid(text, "shape '" + value + "' is not a number");
                }
            } else {
                throw invalid(text, "pareto takes mean=D,shape=A");
            }
        }
        if (mean == null || shape == null) {
            throw invalid(text, "pareto takes mean=D,shape=A");
        }
        if (mean.isZero() || !(shape > 1.0) || shape.isInfinite()) {
            throw invalid(text, "pareto needs a positive mean and a finite shape above 1");
        }
        return new Pareto(mean, shape);
    }

    private static Distribution parseMixture(String arguments, String text) {
        Duration fast = null;
        Duration slow = null;
        Double share = null;
        String form = "mix takes fast=D,slow=D,share=P%";
        for (String part : arguments.split(",")) {
            int equals = part.indexOf('=');
            if (equals < 0) {
                throw invalid(text, form);
            }
            String key = part.substring(0, equals).trim().toLowerCase(Locale.ROOT);
            String value = part.substring(equals + 1).trim();
            if (key.equals("fast") && fast == null) {
                fast = duration(value, text);
            } else if (key.equals("slow") && slow == null) {
                slow = duration(value, text);
            } else if (key.equals("share") && share == null && value.endsWith("%")) {
                try {
                    share = Double.parseDouble(value.substring(0, value.length() - 1)) / 100.0;
                } catch (NumberFormatException e) {
                    throw invalid(text, "share '" + value + "' is not a percentage");
                }
            } else {
                throw invalid(text, form);
            }
        }
        if (fast == null || slow == null || share == null) {
            throw invalid(text, form);
        }
        if (fast.isZero() || slow.compareTo(fast) < 0 || !(share > 0) || !(share < 1)) {
            throw invalid(text, "mix needs 0 < fast <= slow and a share above 0% and below 100%");
        }
        return new Mixture(fast, slow, share);
    }

    private static Duration duration(String value, String text) {
        try {
            return Durations.parse(value);
        } catch (IllegalArgumentException e) {
            throw invalid(text, "'" + value + "' is not " + Durations.FORM);
        }
    }

    private static IllegalArgumentException invalid(String text, String why) {
        return new IllegalArgumentException("expected " + FORM + ", got '" + text + "' (" + why + ")");
    }

    private static long clamp(double nanos) {
        if (!(nanos > 0)) {
            return 0L;
        }
        return nanos >= MAX_SAMPLE_NANOS ? MAX_SAMPLE_NANOS : Math.round(nanos);
    }

    /**
     * Always the same duration.
     *
     * @param value the duration, zero or positive
     */
    record Fixed(Duration value) implements Distribution {

        /**
         * Checks the value.
         *
         * @throws IllegalArgumentException when {@code value} is negative
         * @throws NullPointerException when {@code value} is {@code null}
         */
        public Fixed {
            if (value.isNegative()) {
                throw new IllegalArgumentException("value must not be negative but was " + value);
            }
        }

        @Override
        public long sampleNanos(RandomGenerator random) {
            return clamp(value.toNanos());
        }

        @Override
        public double meanNanos() {
            return value.toNanos();
        }

        @Override
        public String spec() {
            return "fixed:" + Durations.format(value);
        }
    }

    /**
     * Exponentially distributed durations: memoryless, p50 at 0.69 and p99 at 4.6 times the mean.
     *
     * @param mean the mean, positive
     */
    record Exponential(Duration mean) implements Distribution {

        /**
         * Checks the mean.
         *
         * @throws IllegalArgumentException when {@code mean} is not positive
         * @throws NullPointerException when {@code mean} is {@code null}
         */
        public Exponential {
            if (mean.isNegative() || mean.isZero()) {
                throw new IllegalArgumentException("mean must be positive but was " + mean);
            }
        }

        @Override
        public long sampleNanos(RandomGenerator random) {
            return clamp(mean.toNanos() * random.nextExponential());
        }

        @Override
        public double meanNanos() {
            return mean.toNanos();
        }

        @Override
        public String spec() {
            return "exp:" + Durations.format(mean);
        }
    }

    /**
     * Log-normally distributed durations given by their median and 99th percentile: {@code exp(mu + sigma Z)}
     * with {@code mu = ln(median)} and {@code sigma = ln(p99 / median) / 2.326}.
     *
     * @param median the median, positive
     * @param p99 the 99th percentile, above the median
     */
    record LogNormal(Duration median, Duration p99) implements Distribution {

        /** The 99th percentile of the standard normal distribution. */
        private static final double Z_99 = 2.3263478740408408;

        /**
         * Checks the parameters.
         *
         * @throws IllegalArgumentException unless {@code 0 < median < p99}
         * @throws NullPointerException when an argument is {@code null}
         */
        public LogNormal {
            if (median.isNegative() || median.isZero() || p99.compareTo(median) <= 0) {
                throw new IllegalArgumentException("need 0 < median < p99 but median was " + median + " and p99 "
                        + p99);
            }
        }

        private double sigma() {
            return Math.log((double) p99.toNanos() / median.toNanos()) / Z_99;
        }

        @Override
        public long sampleNanos(RandomGenerator random) {
            return clamp(median.toNanos() * Math.exp(sigma() * random.nextGaussian()));
        }

        @Override
        public double meanNanos() {
            double sigma = sigma();
            return median.toNanos() * Math.exp(sigma * sigma / 2);
        }

        @Override
        public String spec() {
            return "lognormal:median=" + Durations.format(median) + ",p99=" + Durations.format(p99);
        }
    }

    /**
     * Pareto-distributed durations (a heavy tail: a few calls take many times the mean), given by their mean and
     * shape {@code a > 1}: {@code scale / U^(1/a)} with {@code scale = mean (a - 1) / a}. At {@code a <= 2} the
     * variance is infinite.
     *
     * @param mean the mean, positive
     * @param shape the tail index, finite and above 1
     */
    record Pareto(Duration mean, double shape) implements Distribution {

        /**
         * Checks the parameters.
         *
         * @throws IllegalArgumentException unless the mean is positive and {@code 1 < shape < infinity}
         * @throws NullPointerException when {@code mean} is {@code null}
         */
        public Pareto {
            if (mean.isNegative() || mean.isZero() || !(shape > 1.0) || Double.isInfinite(shape)) {
                throw new IllegalArgumentException("need a positive mean and a finite shape above 1 but mean was "
                        + mean + " and shape " + shape);
            }
        }

        @Override
        public long sampleNanos(RandomGenerator random) {
            double scale = mean.toNanos() * (shape - 1) / shape;
            return clamp(scale / Math.pow(1.0 - random.nextDouble(), 1.0 / shape));
        }

        @Override
        public double meanNanos() {
            return mean.toNanos();
        }

        @Override
        public String spec() {
            return "pareto:mean=" + Durations.format(mean) + ",shape="
                    + (shape == Math.rint(shape) ? String.valueOf((long) shape) : String.valueOf(shape));
        }
    }

    /**
     * Two kinds of calls mixed, as with cache hits and misses: with probability {@code slowShare} a call's duration
     * is exponential with mean {@code slow}, otherwise exponential with mean {@code fast}. The draw takes two numbers
     * from the generator for every call, whichever kind it is.
     *
     * @param fast the fast calls' mean, positive
     * @param slow the slow calls' mean, at least {@code fast}
     * @param slowShare the share of slow calls, above 0 and below 1
     */
    record Mixture(Duration fast, Duration slow, double slowShare) implements Distribution {

        /**
         * Checks the parameters.
         *
         * @throws IllegalArgumentException unless {@code 0 < fast <= slow} and {@code 0 < slowShare < 1}
         * @throws NullPointerException when a mean is {@code null}
         */
        public Mixture {
            if (fast.isNegative() || fast.isZero() || slow.compareTo(fast) < 0 || !(slowShare > 0)
                    || !(slowShare < 1)) {
                throw new IllegalArgumentException("need 0 < fast <= slow and 0 < slowShare < 1 but fast was " + fast
                        + ", slow " + slow + " and slowShare " + slowShare);
            }
        }

        /**
         * The mixture with the given overall mean, fast/slow ratio and slow share.
         *
         * @param mean the overall mean
         * @param ratio how many times slower the slow calls are, at least 1
         * @param slowShare the share of slow calls
         * @return the mixture
         */
        public static Mixture ofMean(Duration mean, double ratio, double slowShare) {
            double fastNanos = mean.toNanos() / (1 - slowShare + slowShare * ratio);
            return new Mixture(Duration.ofNanos(Math.round(fastNanos)), Duration.ofNanos(Math.round(fastNanos
                    * ratio)), slowShare);
        }

        @Override
        public long sampleNanos(RandomGenerator random) {
            boolean isSlow = random.nextDouble() < slowShare;
            double exponential = -Math.log(1.0 - random.nextDouble());
            return clamp(exponential * (isSlow ? slow : fast).toNanos());
        }

        @Override
        public double meanNanos() {
            return (1 - slowShare) * fast.toNanos() + slowShare * slow.toNanos();
        }

        @Override
        public String spec() {
            return "mix:fast=" + Durations.format(fast) + ",slow=" + Durations.format(slow) + ",share="
                    + java.math.BigDecimal.valueOf(Math.round(slowShare * 1e6) / 1e4).stripTrailingZeros()
                    .toPlainString() + "%";
        }
    }
}
