package dev.bulwark.internal.partition;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadConfig;
import dev.bulwark.BulkheadListener;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.Rejection;
import dev.bulwark.Subscription;
import dev.bulwark.Ticker;
import dev.bulwark.internal.FirstUse;
import dev.bulwark.internal.bulkhead.InProcessBulkhead;
import dev.bulwark.internal.spi.Outcomes;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import org.jspecify.annotations.Nullable;

/**
 * The partitions of a partitioned bulkhead: finding or creating a key's partition for a call, counting them against
 * {@code maxPartitions}, and evicting idle ones.
 *
 * <h2>Design notes</h2>
 *
 * <p><b>Places.</b> {@link #count} is the number of <em>places</em> taken. A place is taken by {@link #reserve()}
 * just before a new partition is offered to the map, and given back exactly once:
 * <ol>
 *   <li>by the creator, when its offer loses to a partition another call put there first (or the offer throws,
 *       from the key's {@code hashCode}/{@code equals});</li>
 *   <li>by the one sweep whose compare-and-set evicted the partition ({@link Partition#tryEvictIdle}), right after
 *       it, whoever then removes the evicted partition from the map (that sweep, or a caller that found it
 *       evicted and makes way for a fresh one: {@code remove(key, partition)} is idempotent).</li>
 * </ol>
 * A place is never taken before work that can fail: the key's configuration ({@code configFor}) and bulkhead are
 * built first, so a failing {@code configFor} costs nothing. Before building, a cheap check refuses at once when
 * every place is taken even after a sweep, so a flood of new keys at the limit builds no bulkheads.
 *
 * <p><b>Invariant.</b> {@code count} = live partitions in the map + creations between {@link #reserve()} and the
 * end of their offer + partitions a sweep has evicted and not yet counted out (the instant between its
 * compare-and-set and its decrement). So whenever the bulkhead is quiet (no call inside {@link #enter}/{@link #exit},
 * no sweep running), {@link #partitionCount()} equals the number of live partitions, whatever failed or raced; and it
 * never exceeds {@code maxPartitions}, because {@link #reserve()} is a compare-and-set bounded by it.
 *
 * <p><b>Sweeps.</b> Callers sweep, so there is no background thread and a dropped bulkhead is collected. A call
 * leaving a partition already holds a clock reading; when it is past {@link #nextSweepAt} (every half idle timeout)
 * it raises {@link #sweepDue}, and the next call to enter runs the sweep on its own thread before looking up its
 * key (so an asynchronous operation's completing thread never sweeps). One periodic sweep at a time; a call that
 * needs a place and finds none sweeps at once whether or not another sweep runs (sweeps only compare-and-set, so
 * two may overlap harmlessly). No lock is held anywhere, in particular not around the keys' {@code hashCode} and
 * {@code equals} or {@code configFor}, which are user code.
 *
 * <p><b>Closing.</b> {@link #close()} sets the sign bit of {@link #count} (and {@link #closed}); {@link #reserve()}
 * fails with {@link Rejection.Reason#CLOSED} once it sees the bit, in the same compare-and-set that takes a place,
 * so no partition is ever created after the close, even by a call that passed the {@code closed} check just
 * before it. The low 31 bits keep counting places as before ({@link #partitionCount()} masks the bit).
 *
 * <p><b>A full table.</b> With {@code evictIdleWhenFull} (the default), a new key that finds every place taken
 * evicts one partition that is idle at that moment (no call in it, none running or queued in its bulkhead), however
 * recently it was used: an idle partition costs its key nothing to lose (the next call builds a fresh one), while
 * refusing a new key until the idle timeout let a flood of one-off keys lock every real tenant out for that long.
 * The victim is chosen by a <em>clock</em> ({@link #clock}): every live partition has one entry, oldest first; the
 * hand polls entries from the head, skips (and drops) evicted ones, gives a partition used since the hand last
 * passed it a second chance at the tail (its use stamp changed), and evicts the first idle one it finds unused since
 * then, or else the first idle one it saw. It looks at no more than {@link #CLOCK_REACH} entries, so finding room or
 * refusing costs a bounded amount however many partitions exist: a refusal means the partitions it looked at were
 * all in use. Without {@code evictIdleWhenFull}, a new key at the limit sweeps every partition for ones idle for the
 * idle timeout, as periodic sweeps do.
 *
 * <p><b>The clock and the map.</b> A partition enters the clock once, right after its creator put it in the map
 * (while the creator is still in it, so it cannot be evicted before); an entry leaves the clock when the hand or a
 * sweep finds its partition evicted. So the clock holds every live partition (but for one a hand holds between its
 * poll and its re-add) plus evicted ones not yet passed over, and periodic sweeps, which walk the clock, keep the
 * latter few.
 *
 * <p><b>Keys stored once.</b> The map holds the key; a partition's bulkhead is named after it
 * ({@link #partitionName}), but a key longer than {@link #KEY_IN_NAME_MAX} characters appears there abbreviated, so
 * that a long client-chosen key is not stored twice.
 *
 * <p><b>Known window.</b> A call that finds every place taken while another call holds a reservation for a
 * partition not yet in the map is refused, although that creation may still lose its offer and give the place
 * back a moment later: the count is exact when quiet, momentarily conservative while creations are in flight.
 * (A refused call re-reads its own key first, so it joins a partition created for its key meanwhile.)
 *
 * @param <K> the key type
 */
public final class PartitionTable<K> {

    /**
     * The longest idle timeout that means what it says: 2^62 ns, about 146 years. Longer ones (up to
     * {@code ChronoUnit.FOREVER}) are treated as this, so that clock arithmetic never overflows.
     */
    public static final long MAX_IDLE_NANOS = 1L << 62;

    private final String name;
    private final BulkheadConfig defaultConfig;
    private final @Nullable Function<? super K, @Nullable BulkheadConfig> configFor;
    private final long idleNanos;
    private final int maxPartitions;
    private final Ticker ticker;
    private final @Nullable Consumer<? super Rejection> rejectionHandler;
    private final @Nullable ToIntFunction<? super K> shareWeight;
    private final PartitionEvents events;
    private final PartitionLimitLog limitLog;
    /** Partitions evicted, by sweeps and to make room. */
    private final LongAdder evictions = new LongAdder();

    /** The longest key text a partition's name holds in full; see {@link #partitionName}. */
    public static final int KEY_IN_NAME_MAX = 64;
    /** How many characters of a longer key its abbreviation keeps. */
    private static final int KEY_IN_NAME_KEPT = 48;

    /** How many clock entries a new key at the limit looks at, at most; see the class notes. */
    static final int CLOCK_REACH = 16;

    private final boolean evictIdleWhenFull;
    private final ConcurrentHashMap<K, Partition> partitions = new ConcurrentHashMap<>();
    /** The eviction clock: every live partition once, oldest first; see the class notes. */
    private final ConcurrentLinkedQueue<ClockEntry<K>> clock = new ConcurrentLinkedQueue<>();
    /**
     * Places taken, and the closed bit (the sign bit); see the class notes. Bounded by {@link #maxPartitions} with a
     * CAS loop.
     */
    private final AtomicInteger count = new AtomicInteger();
    /** Set by {@link #close()}, before the closed bit: read by every call on entry. */
    private volatile boolean closed;
    /** Whether a periodic sweep runs now: at most one at a time. */
    private final AtomicBoolean sweeping = new AtomicBoolean();
    /** Read by every leaving call, written by sweeps only: stays shared in every core's cache. */
    private volatile long nextSweepAt;
    /** Raised by a leaving call past {@link #nextSweepAt}, lowered by the sweep it asks for. */
    private volatile boolean sweepDue;

    /**
     * Creates an empty table.
     *
     * @param name the partitioned bulkhead's name; partitions are named {@code name[key]}
     * @param defaultConfig the configuration of a key without an override
     * @param configFor the overrides, or {@code null}
     * @param idleTimeout how long a partition with no call is kept; positive (saturated at {@link #MAX_IDLE_NANOS})
     * @param maxPartitions the most partitions at once, at least 1
     * @param ticker the clock for idle times
     * @param rejectionHandler told of partition-limit and closed refusals (after the listeners), or {@code null}
     * @param shareWeight each key's share weight under fair shares, or {@code null} for 1 each
     * @param evictIdleWhenFull whether a new key at the limit evicts an idle partition at once (see the class notes)
     * @param events the partitioned bulkhead's listeners, which every partition's bulkhead reports to once one exists
     */
    public PartitionTable(String name, BulkheadConfig defaultConfig,
                          @Nullable Function<? super K, @Nullable BulkheadConfig> configFor, Duration idleTimeout,
                          int maxPartitions, Ticker ticker, @Nullable Consumer<? super Rejection> rejectionHandler,
                          @Nullable ToIntFunction<? super K> shareWeight, boolean evictIdleWhenFull,
                          PartitionEvents events) {
        this.name = name;
        this.defaultConfig = defaultConfig;
        this.configFor = configFor;
        this.idleNanos = saturatedNanos(idleTimeout);
        this.maxPartitions = maxPartitions;
        this.ticker = ticker;
        this.rejectionHandler = rejectionHandler;
        this.shareWeight = shareWeight;
        this.evictIdleWhenFull = evictIdleWhenFull;
        this.events = events;
        this.limitLog = new PartitionLimitLog(name);
        this.nextSweepAt = ticker.read() + idleNanos / 2;
        FirstUse.prepare(); // a partitioned bulkhead builds its partitions' bulkheads on calls, not here
    }

    /**
     * Converts a positive idle timeout to nanoseconds, saturating at {@link #MAX_IDLE_NANOS} instead of overflowing
     * (a long duration must never become "evict at once").
     *
     * @param idleTimeout a positive duration
     * @return nanoseconds in {@code [1, MAX_IDLE_NANOS]}
     */
    static long saturatedNanos(Duration idleTimeout) {
        if (idleTimeout.getSeconds() >= MAX_IDLE_NANOS / 1_000_000_000L) {
            return MAX_IDLE_NANOS;
        }
        return Math.min(idleTimeout.toNanos(), MAX_IDLE_NANOS);
    }

    /**
     * Returns the idle timeout in force, in nanoseconds.
     *
     * @return nanoseconds, at most {@link #MAX_IDLE_NANOS}
     */
    public long idleNanos() {
        return idleNanos;
    }

    /**
     * Returns the most partitions that may exist at once.
     *
     * @return the limit
     */
    public int maxPartitions() {
        return maxPartitions;
    }

    /**
     * Returns how many partitions were evicted since the table was made: idle for the idle timeout, or idle when a
     * new key needed the place.
     *
     * @return the count
     */
    public long evictionCount() {
        return evictions.sum();
    }

    /**
     * Returns the name of a key's partition: {@code name[key]}, with the key's text abbreviated when it is longer
     * than {@link #KEY_IN_NAME_MAX} characters to its first 48, {@code ...#} and eight hexadecimal digits of its
     * {@code String.hashCode()}.
     *
     * @param key the key
     * @return the partition's name
     */
    public String partitionName(K key) {
        String text = String.valueOf(key);
        if (text.length() > KEY_IN_NAME_MAX) {
            int kept = Character.isHighSurrogate(text.charAt(KEY_IN_NAME_KEPT - 1)) ? KEY_IN_NAME_KEPT - 1
                    : KEY_IN_NAME_KEPT; // never cut a surrogate pair in two
            String hash = Integer.toHexString(text.hashCode());
            text = text.substring(0, kept) + "...#" + "00000000".substring(hash.length()) + hash;
        }
        return name + "[" + text + "]";
    }

    /**
     * Attaches a listener that hears every partition's bulkhead, those alive now and those created later, and the
     * partitioned bulkhead's own refusals; see {@link PartitionEvents}.
     *
     * @param listener the listener
     * @return detaches it
     */
    public Subscription addListener(BulkheadListener listener) {
        return events.add(listener, partitions.values());
    }

    /**
     * Returns the places taken: when the bulkhead is quiet, the number of live partitions.
     *
     * @return the count
     */
    public int partitionCount() {
        return count.get() & Integer.MAX_VALUE;
    }

    /**
     * Refuses every later entry and creation with {@link Rejection.Reason#CLOSED}. Idempotent; lock-free.
     *
     * @return {@code true} for the call that closed the table, {@code false} when it was closed already
     */
    public boolean close() {
        closed = true;
        for (;;) {
            int current = count.get();
            if (current < 0) {
                return false;
            }
            if (count.compareAndSet(current, current | Integer.MIN_VALUE)) {
                return true;
            }
        }
    }

    /**
     * Returns whether {@link #close()} was called.
     *
     * @return {@code true} once closed
     */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Builds the refusal of a call by the closed partitioned bulkhead and tells the handler. The counts are those
     * of a {@link Rejection.Reason#PARTITION_LIMIT} refusal: the partition limit and the partitions counted.
     *
     * @param waitedNanos how long the refused call had waited
     * @return the exception
     */
    public BulkheadRejectedException rejectClosed(long waitedNanos) {
        Rejection rejection = new Rejection(name, Rejection.Reason.CLOSED, maxPartitions, 0, partitionCount(), 0,
                Duration.ofNanos(Math.max(0L, waitedNanos)));
        return Outcomes.reject(rejection, null, rejectionHandler);
    }

    /**
     * Returns how many calls hold a slot in the partitions now (the sum of their executing counts).
     *
     * @return the count
     */
    public int executingCount() {
        int executing = 0;
        for (Partition partition : partitions.values()) {
            executing += partition.bulkhead().executingCount();
        }
        return executing;
    }

    /**
     * Returns how many calls wait in the partitions' queues now.
     *
     * @return the count
     */
    public int queuedCount() {
        int queued = 0;
        for (Partition partition : partitions.values()) {
            queued += partition.bulkhead().queuedCount();
        }
        return queued;
    }

    /**
     * Closes every partition's bulkhead (see {@link Bulkhead#close()}), refusing the calls queued in them with
     * {@code CLOSED} at once; called after {@link #close()}, so no partition appears afterwards.
     *
     * @return how many queued calls were refused
     */
    public int closePartitions() {
        int refused = 0;
        for (Partition partition : partitions.values()) {
            refused += partition.bulkhead().drain(java.time.Duration.ZERO).refusedWaiters();
        }
        return refused;
    }

    /**
     * Returns a key's live partition, without creating one.
     *
     * @param key the key, not {@code null}
     * @return its partition, or {@code null}
     */
    public @Nullable Partition find(K key) {
        Partition partition = partitions.get(key);
        return partition == null || partition.isEvicted() ? null : partition;
    }

    /**
     * Returns a snapshot of the live partitions' bulkheads by key.
     *
     * @return an immutable map
     */
    public Map<K, Bulkhead> snapshot() {
        Map<K, Bulkhead> snapshot = new LinkedHashMap<>();
        partitions.forEach((key, partition) -> {
            if (!partition.isEvicted()) {
                snapshot.put(key, partition.bulkhead());
            }
        });
        return Collections.unmodifiableMap(snapshot);
    }

    /**
     * Returns the key's partition, entered by this call (created if needed); the caller must {@link #exit} it
     * exactly once. Lock-free; never blocks.
     *
     * @param key the key, not {@code null}
     * @return the entered partition
     * @throws BulkheadRejectedException with {@link Rejection.Reason#PARTITION_LIMIT} when a new partition is
     *     needed and every place is taken by a partition in use or not idle long enough; with
     *     {@link Rejection.Reason#CLOSED} once the table is closed
     * @throws RuntimeException what {@code configFor} or the key's {@code hashCode}/{@code equals} threw; no place
     *     is left taken
     */
    public Partition enter(K key) {
        if (closed) {
            throw rejectClosed(0L);
        }
        if (sweepDue) {
            periodicSweep();
        }
        for (;;) {
            Partition partition = partitions.get(key);
            if (partition == null) {
                partition = create(key);
                if (partition != null) {
                    return partition; // created already entered, by this call
                }
            } else if (partition.tryEnter()) {
                return partition;
            } else {
                partitions.remove(key, partition); // evicted under our feet: make way for a fresh one
            }
        }
    }

    /**
     * Counts a call out of its partition and notes when, asking for a sweep when one is due. Wait-free.
     *
     * @param partition a partition this call {@link #enter entered}
     */
    public void exit(Partition partition) {
        long now = ticker.read();
        partition.leave(now);
        if (now - nextSweepAt >= 0 && !sweepDue) {
            sweepDue = true;
        }
    }

    /**
     * Creates the key's partition, entered once, and offers it to the map.
     *
     * @return the partition, or {@code null} when another call's partition for the key is in the map (retry)
     */
    private @Nullable Partition create(K key) {
        int counted = count.get();
        if (counted < 0) {
            throw rejectClosed(0L); // closed since enter() looked: no configFor, no bulkhead for a refused call
        }
        if (counted >= maxPartitions && !makeRoom(key)) {
            return null;
        }
        // Built before a place is taken: a configFor that throws leaves nothing behind.
        BulkheadConfig config = configFor == null ? null : configFor.apply(key);
        if (config == null) {
            config = defaultConfig;
        }
        InProcessBulkhead bulkhead = new InProcessBulkhead(config.toBuilder().name(partitionName(key)).config());
        int weight = weightOf(key);
        if (!reserve() && !(makeRoom(key) && reserve())) {
            return null;
        }
        Partition created = new Partition(bulkhead, weight);
        events.attach(created); // before the offer: no call of this partition goes unheard (see PartitionEvents)
        boolean placed = false;
        try {
            placed = partitions.putIfAbsent(key, created) == null;
        } finally {
            if (!placed) {
                count.decrementAndGet(); // never offered, or lost to another call's partition for the key
            }
        }
        if (placed) {
            clock.add(new ClockEntry<>(key, created));
            events.attach(created); // a listener added while this creation ran may have walked the map before it
        }
        if (placed && count.get() < 0) {
            // A drain closed the table after the reserve above and may have walked the map before this put:
            // close what it may have missed. Each side writes (the put; the closed bit) before it reads (the
            // closed bit; the map), so the drain's walk or this check sees the partition, and closing twice is
            // harmless. The caller's own call is then refused CLOSED by the calls' open check.
            created.bulkhead().close();
        }
        return placed ? created : null;
    }

    /**
     * Sweeps to free a place for a new partition of {@code key}.
     *
     * @return {@code true} when a place looks free now; {@code false} when a partition for the key appeared
     *     meanwhile (the caller retries the lookup)
     * @throws BulkheadRejectedException when every place stays taken
     */
    private boolean makeRoom(K key) {
        long now = ticker.read();
        if (evictIdleWhenFull) {
            evictOneIdle(now);
        } else {
            sweep(now);
        }
        if (count.get() < maxPartitions) {
            return true;
        }
        if (partitions.get(key) != null) {
            return false;
        }
        limitLog.refused(now, maxPartitions);
        throw rejectAndNotify();
    }

    private int weightOf(K key) {
        if (shareWeight == null) {
            return 1;
        }
        int weight = shareWeight.applyAsInt(key);
        if (weight < 1) {
            throw new IllegalArgumentException("shareWeight must be at least 1 but was " + weight + " for key "
                    + key);
        }
        return weight;
    }

    /** Takes a place; see the class notes. */
    private boolean reserve() {
        for (;;) {
            int current = count.get();
            if (current < 0) {
                throw rejectClosed(0L);
            }
            if (current >= maxPartitions) {
                return false;
            }
            if (count.compareAndSet(current, current + 1)) {
                return true;
            }
        }
    }

    /** Builds the partition-limit refusal and tells the handler through the outcome code all bulkheads share. */
    private BulkheadRejectedException rejectAndNotify() {
        Rejection rejection = new Rejection(name, Rejection.Reason.PARTITION_LIMIT, maxPartitions, 0,
                partitionCount(), 0, Duration.ZERO);
        return Outcomes.reject(rejection, null, rejectionHandler);
    }

    private void periodicSweep() {
        if (sweeping.compareAndSet(false, true)) {
            try {
                sweepDue = false;
                sweep(ticker.read());
            } finally {
                sweeping.set(false);
            }
        }
    }

    /**
     * Evicts every partition idle for the idle timeout at {@code now}, walking the clock so that it also drops the
     * entries of partitions evicted since; see the class notes.
     */
    private void sweep(long now) {
        nextSweepAt = now + Math.max(1L, idleNanos / 2);
        for (Iterator<ClockEntry<K>> entries = clock.iterator(); entries.hasNext(); ) {
            ClockEntry<K> entry = entries.next();
            if (entry.partition.isEvicted()) {
                entries.remove();
            } else if (entry.partition.tryEvictIdle(now, idleNanos)) {
                evicted(entry);
                entries.remove();
            }
        }
    }

    /**
     * Moves the clock's hand over at most {@link #CLOCK_REACH} entries to evict one idle partition; see the class
     * notes. Lock-free; every entry polled is either dropped (its partition evicted) or added back at the tail.
     */
    private void evictOneIdle(long now) {
        ClockEntry<K> idleButUsed = null;
        for (int looked = 0; looked < CLOCK_REACH; looked++) {
            ClockEntry<K> entry = clock.poll();
            if (entry == null) {
                break;
            }
            Partition partition = entry.partition;
            if (partition.isEvicted()) {
                continue; // its evictor counted it out; the entry was the last trace
            }
            long stamp = partition.useStamp();
            boolean usedSinceLastLook = stamp != entry.seenStamp;
            entry.seenStamp = stamp;
            if (!usedSinceLastLook && partition.tryEvictIdle(now, 0L)) {
                evicted(entry);
                return;
            }
            clock.add(entry); // in use, or used lately: a second chance at the tail
            if (idleButUsed == null && usedSinceLastLook) {
                idleButUsed = entry;
            }
        }
        if (idleButUsed != null && idleButUsed.partition.tryEvictIdle(now, 0L)) {
            evicted(idleButUsed); // its clock entry is dropped when the hand or a sweep next passes it
        }
    }

    /** Counts out a partition this call's compare-and-set evicted, and removes it from the map. */
    private void evicted(ClockEntry<K> entry) {
        count.decrementAndGet(); // the evicting CAS owns the place, whoever removes the entry
        evictions.increment();
        partitions.remove(entry.key, entry.partition);
    }

    /**
     * A partition's place in the eviction clock. {@link #seenStamp} is touched only by the thread that polled the
     * entry, between its poll and its re-add, which the queue orders.
     */
    private static final class ClockEntry<K> {
        final K key;
        final Partition partition;
        /**
         * The partition's use stamp when the hand last passed it. At first, the stamp its creating call leaves it
         * with (one more than now: the creator is still in it), so that a key used by that call alone counts as
         * unused when the hand first comes, and goes before keys used again.
         */
        long seenStamp;

        ClockEntry(K key, Partition partition) {
            this.key = key;
            this.partition = partition;
            this.seenStamp = partition.useStamp() + 1;
        }
    }

    @Override
    public String toString() {
        return partitionCount() + " of " + maxPartitions + " partitions" + (closed ? ", closed" : "");
    }
}
