package dev.bulwark.redis.internal.lease;

import dev.bulwark.Bulkhead;
import dev.bulwark.Permit;

/**
 * An instance's block, enforced by the core in-process bulkhead: its queue, maximum wait, priorities and
 * cancellation serve the instance's calls, and its limit is moved to each new block with
 * {@link Bulkhead#changeMaxConcurrency} (lowering it never interrupts a running call and admits nobody until fewer
 * calls than the new limit run; raising it admits queued callers at once).
 *
 * <p>A block may be 0 (no grant yet, or the fail-closed floor) but the core's limit is at least 1. So the core's
 * limit is always the block plus one, and this instance holds that one slot itself, by a permit taken when nothing
 * else could run and kept until it drains: calls can never use it, and a block of 0 admits nobody while callers
 * still queue (and time out) as usual.
 *
 * <p>Only the renewal chain ({@link BlockRenewer}) calls {@link #apply}, one call at a time, so the limit read by
 * {@link #limit()} and {@link #holding()} is stable between two applications. Other methods are thread-safe.
 */
final class LocalBlock {

    private final Bulkhead core;
    private final Permit reserved;
    private volatile boolean reservedHeld = true;
    /** The thread giving the reserved slot back, while it does: the core tells listeners of that release. */
    private volatile Thread releasingReserved;

    /**
     * Takes the reserved slot of a core bulkhead built with a limit of 1 that nobody has called yet.
     *
     * @throws IllegalStateException when the slot is not free
     */
    LocalBlock(Bulkhead core) {
        this.core = core;
        this.reserved = core.tryAcquire().orElseThrow(
                () -> new IllegalStateException("the local bulkhead's reserved slot was taken"));
    }

    Bulkhead core() {
        return core;
    }

    /** The block this instance enforces now. */
    int limit() {
        return core.maxConcurrency() - 1;
    }

    /** Moves the enforced block. Called by the renewal chain only. */
    void apply(int block) {
        int target = Math.max(0, block) + 1;
        if (core.maxConcurrency() != target) {
            core.changeMaxConcurrency(target);
        }
    }

    /** This instance's calls holding a slot. */
    int inFlight() {
        return Math.max(0, core.executingCount() - (reservedHeld ? 1 : 0));
    }

    /** Whether the core still counts the reserved slot as executing: until the instance drains. */
    boolean reservedHeld() {
        return reservedHeld;
    }

    /**
     * Whether the calling thread is giving the reserved slot back now. The core reports that release to the
     * listeners on this thread, and they never saw the slot admitted, so {@link LeasedRejections} keeps it from them.
     */
    boolean releasingReservedHere() {
        return releasingReserved == Thread.currentThread();
    }

    /** This instance's waiting calls. */
    int queued() {
        return core.queuedCount();
    }

    /**
     * What this instance may still run under until its next renewal: its enforced block, or more while calls
     * admitted under a larger block still run.
     */
    int holding() {
        return Math.max(limit(), inFlight());
    }

    /**
     * Gives the reserved slot back, once the core is closed (so nobody can take it). The flag falls before the slot
     * is freed, so a refusal whose counts the core read in between is translated as if the slot were already free:
     * it reads one call more (LeasedRejections), never one fewer. The listeners are not told of this release
     * ({@link #releasingReservedHere}), as they were not told of its admission.
     */
    void releaseReserved() {
        if (reservedHeld) {
            reservedHeld = false;
            releasingReserved = Thread.currentThread();
            try {
                reserved.close();
            } finally {
                releasingReserved = null;
            }
        }
    }
}
