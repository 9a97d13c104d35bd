package dev.bulwark.internal.stats;

import dev.bulwark.internal.util.VarHandles;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;

/**
 * A cumulative count incremented on a bulkhead's hot path (its admissions) without an atomic read-modify-write: the
 * bindings' one per-call cost that a bare bulkhead does not have was the {@link LongAdder}'s CAS (about a quarter of
 * an uncontended call), so the common case here is a plain load and a release store.
 *
 * <h2>Design notes</h2>
 *
 * <p>A fixed table of {@value #CELLS} cells, indexed by the calling thread's id. A cell belongs to one thread, its
 * <em>owner</em>, and only the owner writes its value: an increment by the owner is a read of its own value and a
 * release store of that plus one, no CAS. A thread whose slot is empty claims it by CAS of a new cell into the table
 * (once per thread and slot). A thread whose slot belongs to another thread counts in a shared {@link LongAdder}
 * instead, today's cost; now and then (one such call in {@value #TAKEOVER_INTERVAL}, chosen at random) it checks
 * whether the owner has ended and, if so, takes the cell over by CAS of the owner field, so that a slot does not stay
 * with a thread of a pool that was replaced. The sum is the shared adder plus every cell, read with acquire loads.
 *
 * <p>Invariants: (1) a cell's value is written only by its owner, and only increases; (2) ownership passes only
 * from a thread that has ended ({@link Thread#isAlive()} returned {@code false}, which synchronizes-with the end of
 * that thread, so all its stores happen before the new owner's first load) to the thread that won the CAS; so a
 * cell's value is a single-writer counter at every moment, increments are never lost, and its successive values
 * only grow. (3) An increment's store is a release and every read an acquire, so a reader that sees an increment
 * also sees everything its thread did before it (what {@link PriorityTally}'s derivation relies on, as it did on the
 * adder's CAS). A sum taken while threads increment is not a snapshot but lies between the counts before and after
 * it; sums taken one after another never go down; once the incrementing threads are quiet (joined, or simply done)
 * it is exact.
 *
 * <p>Memory: the table of {@value #CELLS} references, and a small cell per thread that claimed one. A cell refers to
 * its owner until another thread takes it over, so at most {@value #CELLS} ended threads may stay reachable per
 * counter. Thread-safe; never blocks; allocates only when a thread claims a slot.
 */
public final class ThreadOwnedCounter {

    /** Slots in the table: enough for a busy pool's threads, a power of two. */
    static final int CELLS = 64;
    /** A thread whose slot another thread owns checks for a takeover once in this many calls, on average. */
    static final int TAKEOVER_INTERVAL = 64;

    private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(Cell[].class);
    private static final VarHandle VALUE = VarHandles.field(MethodHandles.lookup(), Cell.class, "value", long.class);
    private static final VarHandle OWNER = VarHandles.field(MethodHandles.lookup(), Cell.class, "owner", Thread.class);

    private final Cell[] slots;
    private final int mask;
    /** The increments of threads whose slot another thread owns. */
    private final LongAdder shared = new LongAdder();

    /** Creates a counter at 0 with {@value #CELLS} slots. */
    public ThreadOwnedCounter() {
        this(CELLS);
    }

    /** A counter with {@code cells} slots, a power of two (tests use few to force sharing and takeovers). */
    ThreadOwnedCounter(int cells) {
        if (cells <= 0 || Integer.bitCount(cells) != 1) {
            throw new IllegalArgumentException("cells must be a power of two but was " + cells);
        }
        slots = new Cell[cells];
        mask = cells - 1;
    }

    /**
     * Takes, on the calling thread (a binding's, at bind time), every path of a first increment and of a sum on a
     * private counter, so that a caller's first admission loads no class and links no {@code VarHandle} operation
     * (issue 37: the Micrometer binding's first admitted call loaded 7 classes without it). Skipped when the system
     * property {@code dev.bulwark.rehearseFirstUse} is {@code false}, like the core's rehearsal.
     */
    public static void rehearse() {
        if ("false".equalsIgnoreCase(System.getProperty("dev.bulwark.rehearseFirstUse"))) {
            return;
        }
        ThreadOwnedCounter counter = new ThreadOwnedCounter(1);
        counter.increment(); // claims the cell
        counter.increment(); // the owner's path
        Thread other = new Thread(() -> { });
        counter.incrementSlowly(other, 0); // another thread's slot is taken: the shared adder
        counter.sum();
    }

    /** One thread's count; its value is written by its owner only (invariant 1). */
    static final class Cell {
        /** Changes only from an ended thread to its successor, by CAS (invariant 2). */
        volatile Thread owner;
        /** Written with release stores by the owner only; read with acquire loads. */
        long value;

        Cell(Thread owner, long value) {
            this.owner = owner;
            this.value = value;
        }
    }

    /** Adds one. */
    public void increment() {
        Thread current = Thread.currentThread();
        int index = slotOf(current);
        // A plain read of the slot: a stale null only sends this call to the slow path, which reads it again.
        Cell cell = slots[index];
        if (cell != null && cell.owner == current) {
            // Single writer (invariant 1): no other thread stores to this value while we own the cell.
            VALUE.setRelease(cell, (long) VALUE.get(cell) + 1);
            return;
        }
        incrementSlowly(current, index);
    }

    private void incrementSlowly(Thread current, int index) {
        Cell cell = (Cell) SLOTS.getAcquire(slots, index);
        if (cell == null) {
            if (SLOTS.compareAndSet(slots, index, null, new Cell(current, 1L))) {
                return; // the new cell, published by the CAS, already holds this increment
            }
            cell = (Cell) SLOTS.getAcquire(slots, index);
        }
        Thread owner = cell.owner;
        if (owner == current) {
            VALUE.setRelease(cell, (long) VALUE.getAcquire(cell) + 1);
            return;
        }
        if (ThreadLocalRandom.current().nextInt(TAKEOVER_INTERVAL) == 0 && !owner.isAlive()
                && OWNER.compareAndSet(cell, owner, current)) {
            // The old owner ended before isAlive() returned false: its last store happens before this load.
            VALUE.setRelease(cell, (long) VALUE.getAcquire(cell) + 1);
            return;
        }
        shared.increment();
    }

    /** The owner of a slot's cell, or {@code null} when unclaimed (for tests). */
    Thread ownerOfSlot(int index) {
        Cell cell = (Cell) SLOTS.getAcquire(slots, index);
        return cell == null ? null : cell.owner;
    }

    @SuppressWarnings("deprecation") // Thread.threadId() is Java 19+; getId() returns the same id.
    private int slotOf(Thread thread) {
        long id = thread.getId();
        return (int) (id ^ (id >>> 32)) & mask;
    }

    /**
     * The count: exact when no increment is in flight, else between the counts before and after the sum; never less
     * than an earlier sum.
     *
     * @return the count
     */
    public long sum() {
        long sum = shared.sum();
        for (int i = 0; i < slots.length; i++) {
            Cell cell = (Cell) SLOTS.getAcquire(slots, i);
            if (cell != null) {
                sum += (long) VALUE.getAcquire(cell);
            }
        }
        return sum;
    }
}
