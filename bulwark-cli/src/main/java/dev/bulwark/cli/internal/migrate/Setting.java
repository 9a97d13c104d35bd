package dev.bulwark.cli.internal.migrate;

import java.util.ArrayList;
import java.util.List;

/**
 * One Resilience4j property of one instance or shared config, with the line it is on. A list property
 * ({@code retryExceptions}) holds its items, whether written as a YAML list, indexed keys or one comma-separated
 * value; any other holds one value.
 */
final class Setting {

    final String key;
    final int line;
    final List<String> values = new ArrayList<>();

    Setting(String key, int line) {
        this.key = key;
        this.line = line;
    }

    String value() {
        return values.isEmpty() ? "" : values.get(values.size() - 1);
    }

    boolean isPlaceholder() {
        return values.stream().anyMatch(value -> value.contains("${"));
    }
}
