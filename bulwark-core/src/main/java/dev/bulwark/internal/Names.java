package dev.bulwark.internal;

import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/** Generates default names ("bulkhead-1", "retry-2", ...) that stay unique within the process. */
public final class Names {

    private static final AtomicLong SEQUENCE = new AtomicLong();

    private Names() {
    }

    /**
     * Returns a new name.
     *
     * @param prefix what the name starts with, such as {@code bulkhead}
     * @return {@code prefix-N} with a number never returned before in this process
     */
    public static String next(String prefix) {
        return prefix + "-" + SEQUENCE.incrementAndGet();
    }

    /**
     * Returns the name a builder was given, or a new one when it was given none: a builder draws its default name
     * at each build, so that two policies built by one builder never share a name (and so their metrics).
     *
     * @param given the name set on the builder, or {@code null}
     * @param prefix what a new name starts with, such as {@code bulkhead}
     * @return {@code given}, or {@code prefix-N} with a number never returned before in this process
     */
    public static String orNext(@Nullable String given, String prefix) {
        return given != null ? given : next(prefix);
    }
}
