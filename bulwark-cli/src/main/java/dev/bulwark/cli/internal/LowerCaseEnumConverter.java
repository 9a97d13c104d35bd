package dev.bulwark.cli.internal;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads an enum constant written in lower case ({@code json}), and names the accepted values in lower case when
 * the input is none of them.
 *
 * @param <E> the enum
 */
abstract class LowerCaseEnumConverter<E extends Enum<E>> implements ITypeConverter<E> {

    private final Class<E> type;

    LowerCaseEnumConverter(Class<E> type) {
        this.type = type;
    }

    @Override
    public E convert(String value) {
        for (E constant : type.getEnumConstants()) {
            if (constant.name().replace('_', '-').equalsIgnoreCase(value.trim())) {
                return constant;
            }
        }
        throw new TypeConversionException("expected " + choices() + ", got '" + value + "'");
    }

    private String choices() {
        String[] names = Arrays.stream(type.getEnumConstants())
                .map(c -> c.name().replace('_', '-').toLowerCase(Locale.ROOT))
                .toArray(String[]::new);
        return Arrays.stream(names, 0, names.length - 1).collect(Collectors.joining(", ")) + " or "
                + names[names.length - 1];
    }

    /** {@code --format}. */
    static final class Format extends LowerCaseEnumConverter<ReportFormat> {
        Format() {
            super(ReportFormat.class);
        }
    }

    /** {@code --adaptive}. */
    static final class Adaptive extends LowerCaseEnumConverter<AdaptiveAlgorithm> {
        Adaptive() {
            super(AdaptiveAlgorithm.class);
        }
    }

    /** {@code --queue-order}. */
    static final class Order extends LowerCaseEnumConverter<dev.bulwark.QueueOrder> {
        Order() {
            super(dev.bulwark.QueueOrder.class);
        }
    }

    /** {@code --progress}. */
    static final class Progress extends LowerCaseEnumConverter<ProgressMode> {
        Progress() {
            super(ProgressMode.class);
        }
    }
}
