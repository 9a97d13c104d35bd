package dev.bulwark.internal.binding;

import java.lang.ref.Cleaner;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@link Cleaner}s that unbind a bound policy once it was garbage-collected, one per back end so that its daemon
 * thread keeps the back end's name ({@code bulwark-micrometer-cleaner}, {@code bulwark-opentelemetry-cleaner}, as
 * the user pages say). Each is created, and its thread started, on the first binding through that back end; the
 * thread sleeps until a bound policy is collected. Thread-safe.
 */
final class Cleaners {

    private static final Map<String, Cleaner> BY_THREAD_NAME = new ConcurrentHashMap<>();

    private Cleaners() {
    }

    /** The cleaner whose daemon thread is called {@code threadName}, created on the first call with that name. */
    static Cleaner named(String threadName) {
        return BY_THREAD_NAME.computeIfAbsent(threadName, name -> Cleaner.create(task -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        }));
    }
}
