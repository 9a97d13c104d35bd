package dev.bulwark.internal;

import java.util.concurrent.atomic.AtomicLong;

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
}
