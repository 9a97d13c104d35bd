package dev.bulwark.cli.internal.migrate;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code bulwark.*} configuration a migration produced, in the order it is printed: each policy's settings by
 * their {@code bulwark} key ({@code max-concurrency}, ...), a value being its text or a list of texts. A policy with
 * no settings of its own is declared by its bare name. Not thread-safe; built once, then only read.
 */
public final class BulwarkConfig {

    /** {@code bulwark.defaults.<kind>} by kind ({@code bulkhead}, {@code retry}, {@code timeout}). */
    final Map<String, Map<String, Object>> defaults = new LinkedHashMap<>();
    /** {@code bulwark.<group>.<name>} by group ({@code bulkheads}, {@code retries}, {@code timeouts}), then name. */
    final Map<String, Map<String, Map<String, Object>>> policies = new LinkedHashMap<>();

    BulwarkConfig() {
        policies.put("bulkheads", new LinkedHashMap<>());
        policies.put("retries", new LinkedHashMap<>());
        policies.put("timeouts", new LinkedHashMap<>());
    }

    boolean isEmpty() {
        return defaults.isEmpty() && policies.values().stream().allMatch(Map::isEmpty);
    }
}
