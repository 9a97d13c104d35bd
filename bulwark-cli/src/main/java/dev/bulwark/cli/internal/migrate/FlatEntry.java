package dev.bulwark.cli.internal.migrate;

/**
 * One setting of a configuration file in Spring Boot's flat form: {@code resilience4j.retry.instances.a.maxAttempts}
 * with its value, list items as {@code ...retryExceptions[0]}. A map or list with nothing in it has an empty value.
 *
 * @param key the flat key as written (YAML keys joined with dots)
 * @param value the scalar's text, empty when there is none
 * @param line the line the value (or the key, when it has none) is on, from 1
 */
public record FlatEntry(String key, String value, int line) {
}
