package dev.bulwark.cli.internal;

import dev.bulwark.Priority;
import dev.bulwark.cli.internal.sim.Mix;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Converters of the options that describe the calls' classes: {@code --priority-mix}, {@code --weights} and
 * {@code --reserve}. Like {@link Converters}, each rejects bad input with a {@link TypeConversionException} stating
 * the accepted form and what was wrong; {@link OneLineErrors} prefixes the option's name.
 */
final class MixConverters {

    private static final String PRIORITY_NAMES = "critical, high, normal, low or sheddable";

    private MixConverters() {
    }

    /** {@code critical:20%,normal:50%,sheddable:30%}: priorities (any case) with shares adding up to 100 %. */
    static final class PriorityMixConverter implements ITypeConverter<Mix<Priority>> {
        @Override
        public Mix<Priority> convert(String value) {
            return mix(value, "critical:20%,normal:50%,sheddable:30%", MixConverters::priority);
        }
    }

    /** {@code 1:70%,2:20%,4:10%}: weights (slots per call, at least 1) with shares adding up to 100 %. */
    static final class WeightMixConverter implements ITypeConverter<Mix<Integer>> {
        @Override
        public Mix<Integer> convert(String value) {
            return mix(value, "1:70%,2:20%,4:10%", text -> {
                try {
                    int weight = Integer.parseInt(text);
                    if (weight >= 1) {
                        return weight;
                    }
                } catch (NumberFormatException e) {
                    // reported below
                }
                throw new TypeConversionException("weight '" + text + "' is not a whole number of at least 1");
            });
        }
    }

    /**
     * The value of {@code --reserve}; a type of its own because picocli reads a {@code Map} option as
     * {@code KEY=VALUE} pairs.
     *
     * @param slots the reserved slots per priority
     */
    record Reserves(Map<Priority, Integer> slots) {
    }

    /** {@code critical:2,high:1}: slots reserved for a priority and those above it. */
    static final class ReserveConverter implements ITypeConverter<Reserves> {
        @Override
        public Reserves convert(String value) {
            Map<Priority, Integer> reserves = new EnumMap<>(Priority.class);
            for (String part : value.split(",", -1)) {
                String[] pair = part.trim().split(":", -1);
                if (pair.length != 2) {
                    throw new TypeConversionException("expected PRIORITY:SLOTS[,PRIORITY:SLOTS...] such as "
                            + "critical:2,high:1, got '" + value + "'");
                }
                Priority priority = priority(pair[0].trim());
                if (priority == Priority.SHEDDABLE) {
                    throw new TypeConversionException("sheddable cannot have a reserve: every call may use those "
                            + "slots anyway");
                }
                int slots;
                try {
                    slots = Integer.parseInt(pair[1].trim());
                } catch (NumberFormatException e) {
                    slots = -1;
                }
                if (slots < 1) {
                    throw new TypeConversionException("slots of " + pair[0].trim() + " must be a whole number of at "
                            + "least 1, got '" + pair[1].trim() + "'");
                }
                if (reserves.put(priority, slots) != null) {
                    throw new TypeConversionException(pair[0].trim() + " is given twice");
                }
            }
            return new Reserves(reserves);
        }
    }

    private static Priority priority(String text) {
        try {
            return Priority.valueOf(text.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException("unknown priority '" + text + "'; expected " + PRIORITY_NAMES);
        }
    }

    private static <T> Mix<T> mix(String value, String example, Function<String, T> parseValue) {
        String form = "expected VALUE:SHARE%[,VALUE:SHARE%...] such as " + example;
        List<Mix.Entry<T>> entries = new ArrayList<>();
        for (String part : value.split(",", -1)) {
            String[] pair = part.trim().split(":", -1);
            if (pair.length != 2 || !pair[1].trim().endsWith("%")) {
                throw new TypeConversionException(form + ", got '" + value + "'");
            }
            T parsed = parseValue.apply(pair[0].trim());
            String share = pair[1].trim();
            double percent;
            try {
                percent = Double.parseDouble(share.substring(0, share.length() - 1).trim());
            } catch (NumberFormatException e) {
                throw new TypeConversionException(form + ", got '" + value + "'");
            }
            try {
                entries.add(new Mix.Entry<>(parsed, percent));
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException("share of " + pair[0].trim() + " must be more than 0% and at most "
                        + "100%, got '" + share + "'");
            }
        }
        try {
            return new Mix<>(entries, value.trim().toLowerCase(Locale.ROOT).replace(" ", ""));
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage() + ", got '" + value + "'");
        }
    }
}
