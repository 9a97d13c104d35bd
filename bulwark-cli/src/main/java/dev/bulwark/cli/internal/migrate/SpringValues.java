package dev.bulwark.cli.internal.migrate;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads property values the way Spring Boot converts them, and writes durations the way it reads them back. A value
 * Spring would refuse is refused here, naming the file, line and key. Stateless.
 */
final class SpringValues {

    /** Spring's simple duration format: a whole number and an optional unit. */
    private static final Pattern SIMPLE = Pattern.compile("^([+-]?\\d+)([a-zA-Z]{0,2})$");

    private SpringValues() {
    }

    /**
     * A duration as Spring reads it into a {@code Duration} property with no unit annotation: {@code 500ms},
     * {@code 2s}, ISO-8601 {@code PT2S}, or a bare number of milliseconds ({@code 100}).
     */
    static Duration duration(String file, Setting setting) {
        String text = setting.value().strip();
        Matcher simple = SIMPLE.matcher(text);
        try {
            if (simple.matches()) {
                long amount = Long.parseLong(simple.group(1));
                return switch (simple.group(2).toLowerCase(Locale.ROOT)) {
                    case "", "ms" -> Duration.ofMillis(amount);
                    case "ns" -> Duration.ofNanos(amount);
                    case "us" -> Duration.of(amount, ChronoUnit.MICROS);
                    case "s" -> Duration.ofSeconds(amount);
                    case "m" -> Duration.ofMinutes(amount);
                    case "h" -> Duration.ofHours(amount);
                    case "d" -> Duration.ofDays(amount);
                    default -> throw refused(file, setting, "a duration (such as 500ms, 2s or PT2S)");
                };
            }
            return Duration.parse(text);
        } catch (DateTimeParseException | ArithmeticException | NumberFormatException malformed) {
            throw refused(file, setting, "a duration (such as 500ms, 2s or PT2S)");
        }
    }

    static int integer(String file, Setting setting) {
        try {
            return Integer.parseInt(setting.value().strip());
        } catch (NumberFormatException malformed) {
            throw refused(file, setting, "a whole number");
        }
    }

    static double number(String file, Setting setting) {
        try {
            double value = Double.parseDouble(setting.value().strip());
            if (Double.isNaN(value) || Double.isInfinite(value)) {
                throw new NumberFormatException();
            }
            return value;
        } catch (NumberFormatException malformed) {
            throw refused(file, setting, "a number");
        }
    }

    /** A boolean as Spring converts one: true/false, yes/no, on/off, 1/0, in any case. */
    static boolean bool(String file, Setting setting) {
        return switch (setting.value().strip().toLowerCase(Locale.ROOT)) {
            case "true", "yes", "on", "1" -> true;
            case "false", "no", "off", "0" -> false;
            default -> throw refused(file, setting, "true or false");
        };
    }

    /**
     * A duration in Spring's simple format with the largest unit that writes it exactly ({@code 1500ms},
     * {@code 2s}, {@code 1m}).
     */
    static String format(Duration duration) {
        long nanos;
        try {
            nanos = duration.toNanos();
        } catch (ArithmeticException tooLong) {
            return duration.toString();
        }
        long[] sizes = {86_400_000_000_000L, 3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L, 1_000_000L, 1_000L};
        String[] units = {"d", "h", "m", "s", "ms", "us"};
        for (int i = 0; i < sizes.length; i++) {
            if (nanos != 0 && nanos % sizes[i] == 0) {
                return nanos / sizes[i] + units[i];
            }
        }
        return nanos == 0 ? "0ms" : nanos + "ns";
    }

    private static BadConfigException refused(String file, Setting setting, String expected) {
        return new BadConfigException(file, setting.line, setting.key + ": expected " + expected + ", got '"
                + setting.value() + "'");
    }
}
