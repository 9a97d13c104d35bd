package dev.bulwark.spring.internal;

import dev.bulwark.Priority;
import java.util.Objects;

/**
 * Where a shedding route takes a request's {@link Priority} from: a request header whose value names a priority
 * (case-insensitive, surrounding blanks ignored), else the route's default priority. A missing, blank or unknown
 * value means the default: a client's typo costs it its precedence, never the request (no 400).
 *
 * <p>Immutable and thread-safe.
 *
 * @param header the header naming the priority, or {@code null} when the route reads none
 * @param defaultPriority the priority of a request whose header is absent or names no priority
 * @param declared whether the route declared a priority setting at all (the problem body then names the
 *     request's priority)
 */
public record RoutePriority(String header, Priority defaultPriority, boolean declared) {

    /** A route without priority settings: every request at {@link Priority#NORMAL}. */
    public static final RoutePriority NONE = new RoutePriority(null, Priority.NORMAL, false);

    private static final Priority[] PRIORITIES = Priority.values();

    /** Checks the components. */
    public RoutePriority {
        Objects.requireNonNull(defaultPriority, "defaultPriority");
    }

    /**
     * Returns the priority a header value names, else the default.
     *
     * @param value the header's value, or {@code null} when the request has none
     * @return the priority, never {@code null}
     */
    public Priority of(String value) {
        if (value == null) {
            return defaultPriority;
        }
        String name = value.strip();
        for (Priority priority : PRIORITIES) {
            if (priority.name().equalsIgnoreCase(name)) {
                return priority;
            }
        }
        return defaultPriority;
    }

    /**
     * Parses a configured priority name, case-insensitively.
     *
     * @param name the configured name
     * @return the priority, or {@code null} when {@code name} names none
     */
    public static Priority parse(String name) {
        String stripped = name.strip();
        for (Priority priority : PRIORITIES) {
            if (priority.name().equalsIgnoreCase(stripped)) {
                return priority;
            }
        }
        return null;
    }
}
