package dev.bulwark.spring.internal;

import java.util.Objects;

/**
 * Where a shedding route takes a request's partition key from. A request that carries no key (no header, no
 * principal) gets the route's default key, so all such requests share one partition.
 *
 * <p>Immutable and thread-safe.
 */
public sealed interface KeySource {

    /** The route has one bulkhead and no key. */
    record None() implements KeySource {
    }

    /**
     * The value of a request header.
     *
     * @param name the header's name
     */
    record Header(String name) implements KeySource {

        /** Checks the name. */
        public Header {
            Objects.requireNonNull(name, "name");
        }
    }

    /**
     * The value of a variable of the route's pattern.
     *
     * @param name the variable's name
     */
    record PathVariable(String name) implements KeySource {

        /** Checks the name. */
        public PathVariable {
            Objects.requireNonNull(name, "name");
        }
    }

    /** The authenticated principal's name. */
    record Principal() implements KeySource {
    }
}
