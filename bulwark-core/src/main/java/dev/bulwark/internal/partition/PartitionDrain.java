package dev.bulwark.internal.partition;

import dev.bulwark.DrainResult;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Closes a partitioned bulkhead and waits for its running calls.
 *
 * <h2>Design notes</h2>
 *
 * <p>The first drain closes the table (no entry, no new partition: see {@link PartitionTable}), refuses every call
 * waiting for a fair global slot ({@link FairShares#close()}), and closes every partition's bulkhead, which refuses
 * the calls queued in it with {@code CLOSED} at once ({@link PartitionTable#closePartitions()}); a call that got its
 * partition slot just before the close is refused before its operation starts ({@link PartitionedCalls}), so none
 * of them ever runs. Later drains refuse nothing more. Every drain then waits
 * for the partitions' executing counts to reach 0, re-reading them at most every millisecond (parking, so a virtual
 * thread is not pinned), and never past its deadline, measured on {@link System#nanoTime()}: a drain's deadline is
 * real time even when the bulkhead's ticker is a test's, and starting once the closing is done: {@code waited} is the
 * time spent waiting for running calls only, zero when the drain did not wait (a zero deadline, or nothing running
 * after the close), as for a plain bulkhead. The global bulkhead is the user's and is left alone.
 */
public final class PartitionDrain {

    /** The longest pause between two reads of the executing counts. */
    private static final long POLL_NANOS = 1_000_000L;

    private PartitionDrain() {
    }

    /**
     * Drains the partitioned bulkhead.
     *
     * @param name the partitioned bulkhead's name
     * @param table its partitions
     * @param fair its fair shares, or {@code null}
     * @param deadline how long to wait for running calls, not negative
     * @return what was left
     */
    public static DrainResult drain(String name, PartitionTable<?> table, @Nullable FairShares fair,
                                    Duration deadline) {
        long budget = saturatedNanos(deadline);
        int refused = 0;
        if (table.close()) {
            refused += table.closePartitions();
            if (fair != null) {
                refused += fair.close();
            }
        }
        int executing = table.executingCount();
        long waited = 0L;
        if (executing > 0 && budget > 0) {
            long start = System.nanoTime(); // after the closing: waited() is the wait for running calls only
            while (executing > 0) {
                long remaining = budget - (System.nanoTime() - start);
                if (remaining <= 0 || Thread.currentThread().isInterrupted()) {
                    break;
                }
                LockSupport.parkNanos(PartitionDrain.class, Math.min(remaining, POLL_NANOS));
                executing = table.executingCount();
            }
            waited = System.nanoTime() - start;
        }
        return new DrainResult(name, refused, executing, Duration.ofNanos(waited));
    }

    private static long saturatedNanos(Duration deadline) {
        if (deadline.getSeconds() >= Long.MAX_VALUE / 1_000_000_000L - 1) {
            return Long.MAX_VALUE;
        }
        return deadline.toNanos();
    }
}
