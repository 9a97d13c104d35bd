package dev.bulwark.cli.internal.migrate;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The properties of one Resilience4j instance or shared config ({@code instances.<name>} or
 * {@code configs.<name>}), by property name in Spring's canonical form (lower case, no dashes or underscores, so that
 * {@code maxWaitDuration}, {@code max-wait-duration} and {@code max_wait_duration} are one property, as Spring binds
 * them), in file order.
 */
final class Props {

    final String name;
    final String key;
    final int line;
    final Map<String, Setting> settings = new LinkedHashMap<>();

    Props(String name, String key, int line) {
        this.name = name;
        this.key = key;
        this.line = line;
    }

    Setting get(String canonical) {
        return settings.get(canonical);
    }

    String baseConfig() {
        Setting base = settings.get("baseconfig");
        return base == null ? "" : base.value().strip();
    }
}
