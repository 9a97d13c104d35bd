package dev.bulwark.cli.internal.report;

import java.math.BigDecimal;
import java.util.Locale;

/** Number formats for the text reports: fixed locale, so output is the same on every machine. */
final class Numbers {

    private Numbers() {
    }

    /** A count with thousands separators: {@code 20,035}. */
    static String count(long value) {
        return String.format(Locale.ROOT, "%,d", value);
    }

    /** A rate or mean with thousands separators and no decimals: {@code 1,598}. */
    static String whole(double value) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%,.0f", value);
    }

    /** A share as a percentage with one decimal: {@code 19.4 %}. */
    static String percent(double fraction) {
        return String.format(Locale.ROOT, "%.1f %%", fraction * 100);
    }

    /** A small quantity with three significant digits: {@code 31.6}, {@code 0.982}, {@code 1,240}. */
    static String significant(double value) {
        if (Double.isNaN(value)) {
            return "-";
        }
        if (value == 0) {
            return "0";
        }
        double magnitude = Math.abs(value);
        if (magnitude >= 100) {
            return whole(value);
        }
        if (magnitude >= 10) {
            return String.format(Locale.ROOT, "%.1f", value);
        }
        if (magnitude >= 1) {
            return String.format(Locale.ROOT, "%.2f", value);
        }
        return String.format(Locale.ROOT, "%.3f", value);
    }

    /** A setting such as the degradation: as short as possible, {@code 1}, {@code 0.25}. */
    static String plain(double value) {
        return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
    }

    /** Milliseconds for a table column, without unit: {@code 0.41}, {@code 21.3}, {@code 112}, {@code 4,210}. */
    static String millis(double value) {
        return significant(value);
    }
}
