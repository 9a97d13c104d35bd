package dev.bulwark.internal.partition;

import dev.bulwark.internal.FirstUse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Logs a partitioned bulkhead's {@code PARTITION_LIMIT} refusals at WARNING, at most one line per interval: a full
 * table is what a flood of client-chosen keys looks like, and a refusal per call must not become a log line per
 * call. The first refusal is logged at once; later ones are counted and reported with the next line, when the
 * interval since the last one has passed. Logger {@code dev.bulwark.partition}.
 *
 * <p>Lock-free: every refusal adds to {@link #refused}; the one that moves {@link #nextLineAt} by compare-and-set
 * takes the count and hands the line to another thread ({@code CompletableFuture.runAsync}): in a fresh JVM the
 * first line starts the logging back end (a service look-up, handlers, formatters: 178 ms measured by
 * {@code FirstCallsTest}), which a refused caller must not wait for.
 */
final class PartitionLimitLog {

    /** The shortest time between two lines. */
    static final long INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

    /** The logger, looked up on the first line, never while a class initialises (see the cold-start notes). */
    private static final class Log {
        static final System.Logger LOGGER = System.getLogger("dev.bulwark.partition");

        private Log() {
        }
    }

    private final String name;
    /** Whether this is the first-use rehearsal's table, whose rehearsed refusal is no news to anyone. */
    private final boolean quiet;
    private final AtomicLong refused = new AtomicLong();
    /** When the next line may be written; {@code Long.MIN_VALUE} until the first. */
    private final AtomicLong nextLineAt = new AtomicLong(Long.MIN_VALUE);

    PartitionLimitLog(String name) {
        this.name = name;
        this.quiet = FirstUse.PER_KEY_REHEARSAL.equals(name);
    }

    /**
     * Counts one refusal and writes a line when one is due.
     *
     * @param now the table's ticker reading
     * @param maxPartitions the partition limit, for the message
     */
    void refused(long now, int maxPartitions) {
        refused.incrementAndGet();
        long due = nextLineAt.get();
        if ((due != Long.MIN_VALUE && now - due < 0) || !nextLineAt.compareAndSet(due, now + INTERVAL_NANOS)) {
            return;
        }
        long count = refused.getAndSet(0);
        // A StringBuilder, not '+': the first '+' of a call site links a string-concatenation method handle, which
        // costs a fresh JVM tens of milliseconds on the refused caller's thread.
        String line = new StringBuilder(256).append("Partitioned bulkhead '").append(name).append("' refused ")
                .append(count).append(count == 1 ? " call" : " calls").append(" for new keys (PARTITION_LIMIT)")
                .append(due == Long.MIN_VALUE ? "" : " in the last minute or more").append(": all ")
                .append(maxPartitions).append(" partitions were in use. If clients choose the keys, bound them ")
                .append("(a key validator); otherwise raise maxPartitions. (At most one such line a minute.)")
                .toString();
        // The rehearsal goes the same way (so a user's first refusal finds every class of it ready), but writes
        // nothing.
        boolean silent = quiet;
        try {
            CompletableFuture.runAsync(() -> write(line, silent));
        } catch (RuntimeException noThread) {
            // No thread to log on (the executor refused): the refusal itself stands, and is counted by listeners.
        }
    }

    private static void write(String line, boolean silent) {
        if (silent) {
            return;
        }
        System.Logger logger = Log.LOGGER;
        if (logger.isLoggable(System.Logger.Level.WARNING)) {
            logger.log(System.Logger.Level.WARNING, line);
        }
    }
}
