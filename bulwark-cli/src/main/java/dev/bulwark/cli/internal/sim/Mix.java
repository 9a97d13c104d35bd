package dev.bulwark.cli.internal.sim;

import java.util.List;
import java.util.Objects;

/**
 * A discrete distribution of a call's class (its priority, its weight): values with shares in percent that add
 * up to 100. Immutable and thread-safe. A call draws its class with {@link #draw(double)} from a uniform number,
 * so that the same numbers give the same classes.
 *
 * @param <T> the class, {@code dev.bulwark.Priority} or {@code Integer} (a weight)
 * @param entries the values in the order given, each with its share; no value twice
 * @param spec the text it was parsed from, for reports
 */
public record Mix<T>(List<Entry<T>> entries, String spec) {

    /** How far from 100 the shares may add up to, for decimals such as {@code 33.3%,33.3%,33.4%}. */
    private static final double TOLERANCE = 1e-6;

    /**
     * One value of a mix.
     *
     * @param value the class
     * @param percent its share, more than 0 and at most 100
     */
    public record Entry<T>(T value, double percent) {
        /**
         * Checks the entry.
         *
         * @throws IllegalArgumentException when {@code percent} is not more than 0 and at most 100
         * @throws NullPointerException when {@code value} is {@code null}
         */
        public Entry {
            Objects.requireNonNull(value, "value");
            if (!(percent > 0 && percent <= 100)) {
                throw new IllegalArgumentException("share of " + value + " must be more than 0% and at most 100% "
                        + "but was " + percent + "%");
            }
        }
    }

    /**
     * Checks the mix.
     *
     * @throws IllegalArgumentException when there are no entries, a value appears twice, or the shares do not add
     *     up to 100 %
     * @throws NullPointerException when {@code entries} or {@code spec} is {@code null}
     */
    public Mix {
        entries = List.copyOf(Objects.requireNonNull(entries, "entries"));
        Objects.requireNonNull(spec, "spec");
        if (entries.isEmpty()) {
            throw new IllegalArgumentException("a mix needs at least one value");
        }
        double sum = 0;
        for (int i = 0; i < entries.size(); i++) {
            for (int j = 0; j < i; j++) {
                if (entries.get(j).value().equals(entries.get(i).value())) {
                    throw new IllegalArgumentException(entries.get(i).value() + " is given twice");
                }
            }
            sum += entries.get(i).percent();
        }
        if (Math.abs(sum - 100) > TOLERANCE) {
            throw new IllegalArgumentException("the shares must add up to 100% but add up to "
                    + java.math.BigDecimal.valueOf(sum).stripTrailingZeros().toPlainString() + "%");
        }
    }

    /**
     * Returns the class a uniform number falls on: the first value whose cumulative share exceeds it.
     *
     * @param uniform at least 0 and less than 1
     * @return one of the values; the last one for numbers the rounding of the shares leaves uncovered
     */
    public T draw(double uniform) {
        double cumulative = 0;
        double point = uniform * 100;
        for (Entry<T> entry : entries) {
            cumulative += entry.percent();
            if (point < cumulative) {
                return entry.value();
            }
        }
        return entries.get(entries.size() - 1).value();
    }
}
