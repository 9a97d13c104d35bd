package dev.bulwark.micrometer.internal;

import java.lang.ref.Cleaner;

/**
 * The one {@link Cleaner} of this module: it removes the meters of a bound policy that was garbage-collected. Its
 * single daemon thread is started on first use and sleeps until a bound policy is collected.
 */
final class Cleaners {

    static final Cleaner CLEANER = Cleaner.create(task -> {
        Thread thread = new Thread(task, "bulwark-micrometer-cleaner");
        thread.setDaemon(true);
        return thread;
    });

    private Cleaners() {
    }
}
