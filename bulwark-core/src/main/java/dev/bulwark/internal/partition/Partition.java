package dev.bulwark.internal.partition;

import dev.bulwark.internal.bulkhead.InProcessBulkhead;
import dev.bulwark.internal.util.VarHandles;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;
import org.jspecify.annotations.Nullable;

/**
 * One key's bulkhead and the calls using it: the unit a {@link PartitionTable} creates, hands to calls and evicts.
 *
 * <h2>Design notes</h2>
 *
 * <p><b>State word.</b> One {@code long}, {@link #state}, changed only by compare-and-set or atomic add:
 * <ul>
 *   <li>low 32 bits: the number of calls between {@link #tryEnter()} and {@link #leave(long)} (never near 2^31);</li>
 *   <li>high 32 bits: a use stamp, incremented by every {@link #leave(long)} (wrapping is harmless: see below);</li>
 *   <li>low 32 bits all ones ({@code (int) state == -1}): evicted, for good.</li>
 * </ul>
 * A partition is born with one user (the call that creates it), so it cannot be evicted before its creator has
 * used it. {@link #leave(long)} writes {@link #lastUsed} <em>before</em> its atomic add, and a sweep reads the state
 * word <em>before</em> {@link #lastUsed}; eviction is a compare-and-set from exactly the word it read, with users 0.
 *
 * <p><b>Invariant.</b> A partition is evicted only if, at one moment, no call was using it, its last call had left
 * at least the idle timeout ago, and nothing entered or left between the sweep's read and its compare-and-set
 * (either would have changed the word, the stamp catching an enter-and-leave that restored users to 0). Once
 * evicted, {@link #tryEnter()} always fails, so no call ever runs in an evicted partition, and whoever finds it
 * evicted removes it from the map and creates the next one: a key never has two live partitions. The stamp could
 * fool the compare-and-set only after exactly 2^32 calls completed between two adjacent instructions of a sweep.
 *
 * <p><b>Padding.</b> Calls on different keys write different partitions, every call (the state word twice, the
 * last-use time once); partitions are small and the collector copies objects that are reachable one after the
 * other next to each other, so without padding two keys' partitions share a cache line and their calls contend as
 * if on one bulkhead (unpadded, {@code PerKeyBenchmark} forks measured either 62 or 160 to 200 ns per call,
 * depending on where the collector had put the two partitions). Sixty-four bytes on each side of the hot fields
 * keep them alone on their line. The int fills the gap after the object header, which the JVM would otherwise fill
 * with a subclass field.
 */
@SuppressWarnings("unused")
public final class Partition extends PartitionLayout.HotFields {

    private static final VarHandle STATE =
            VarHandles.field(MethodHandles.lookup(), PartitionLayout.HotFields.class, "state", long.class);
    private static final VarHandle HELD =
            VarHandles.field(MethodHandles.lookup(), PartitionLayout.HotFields.class, "held", int.class);
    private static final VarHandle HEARD = VarHandles.field(MethodHandles.lookup(), "heard", boolean.class);
    /** Low half of the word: the user count. */
    private static final long USERS_MASK = 0xFFFF_FFFFL;
    /** Adding this to the word removes one user and bumps the stamp, in one atomic add. */
    private static final long LEAVE = (1L << 32) - 1;

    /** Padding after the hot fields: see the class notes. */
    long p11, p12, p13, p14, p15, p16, p17, p18;

    /** The key's share weight under fair shares (1 without them); fixed for the partition's life. */
    private final int shareWeight;
    /**
     * The key's calls waiting for a global slot under fair shares, oldest first; created on first use. Guarded by
     * the {@code FairShares} lock, like everything about waiting there.
     */
    private @Nullable ArrayDeque<FairWaiter> fairQueue;
    /** Whether the partitioned bulkhead's listeners hear this partition's bulkhead; see {@link #markHeard()}. */
    private volatile boolean heard;

    /**
     * Creates a partition already entered once, by the call creating it.
     *
     * @param bulkhead the key's bulkhead
     * @param shareWeight the key's share weight, at least 1
     */
    Partition(InProcessBulkhead bulkhead, int shareWeight) {
        super(bulkhead, 1L);
        this.shareWeight = shareWeight;
    }

    /**
     * Returns the key's share weight under fair shares.
     *
     * @return at least 1
     */
    int shareWeight() {
        return shareWeight;
    }

    /**
     * Returns the global slots this key's calls hold through fair shares now.
     *
     * @return the count
     */
    int held() {
        return held;
    }

    /**
     * Counts global slots taken ({@code delta > 0}) or given back ({@code delta < 0}) by this key's calls.
     * Wait-free.
     *
     * @param delta the change
     */
    void addHeld(int delta) {
        HELD.getAndAdd(this, delta);
    }

    /**
     * Returns this key's fair-share queue, creating it. Only under the {@code FairShares} lock.
     *
     * @return the queue
     */
    ArrayDeque<FairWaiter> fairQueue() {
        ArrayDeque<FairWaiter> queue = fairQueue;
        if (queue == null) {
            queue = new ArrayDeque<>(4);
            fairQueue = queue;
        }
        return queue;
    }

    /**
     * Returns the key's bulkhead: an in-process one, which the partitioned bulkhead's calls enter past its public
     * API (the open check and weight of {@code PartitionedCalls}).
     *
     * @return the bulkhead
     */
    public InProcessBulkhead bulkhead() {
        return bulkhead;
    }

    /**
     * Marks the partition as heard by its partitioned bulkhead's listeners, once.
     *
     * @return {@code true} for the one caller that marked it, which then attaches the listeners
     */
    boolean markHeard() {
        return !heard && HEARD.compareAndSet(this, false, true);
    }

    /**
     * Returns whether the partition has been evicted (then no call will enter it again).
     *
     * @return {@code true} once evicted
     */
    public boolean isEvicted() {
        return (int) state == -1;
    }

    /**
     * Returns the use stamp: changed by every call that leaves (wrapping at 2^32). Wait-free.
     *
     * @return the high half of the state word
     */
    long useStamp() {
        return state >>> 32;
    }

    /**
     * Counts one more call using the partition, unless it is evicted. Lock-free.
     *
     * @return {@code false} when the partition is evicted and must be replaced
     */
    boolean tryEnter() {
        for (;;) {
            long current = state;
            if ((int) current == -1) {
                return false;
            }
            if (STATE.compareAndSet(this, current, current + 1)) {
                return true;
            }
        }
    }

    /**
     * Counts a call out of the partition, recording when it left. Only after a successful {@link #tryEnter()} (or
     * by the creator); wait-free.
     *
     * @param now the ticker reading at which the call left
     */
    void leave(long now) {
        lastUsed = now; // before the add: a sweep that sees this leave in the word also sees the time
        STATE.getAndAdd(this, LEAVE);
    }

    /**
     * Evicts the partition if no call has used it for {@code idleNanos} and its bulkhead holds and queues nothing
     * (a caller may have used the bulkhead directly, through {@code partition(key)}). Lock-free; at most one caller
     * ever succeeds, so the one that does owns the partition's place in the count.
     *
     * @param now the sweep's ticker reading
     * @param idleNanos the idle timeout
     * @return {@code true} if this call evicted it
     */
    boolean tryEvictIdle(long now, long idleNanos) {
        long current = state; // the word first, then the time it guards (see the class notes)
        if ((current & USERS_MASK) != 0 || now - lastUsed < idleNanos
                || bulkhead.executingCount() != 0 || bulkhead.queuedCount() != 0) {
            return false;
        }
        return STATE.compareAndSet(this, current, current | USERS_MASK);
    }

    @Override
    public String toString() {
        return "Partition[" + bulkhead.name() + (isEvicted() ? ", evicted" : ", users " + (int) state) + "]";
    }
}
