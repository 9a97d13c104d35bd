package dev.bulwark.redis.internal;

import dev.bulwark.CancellationSignal;
import dev.bulwark.Rejection;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One call of this instance that is joining or waiting in the cluster-wide queue, registered under its id so that
 * a grant published by any instance (or found by the poll) reaches it.
 *
 * <p>Invariant: the call's fate is decided exactly once, by the compare-and-set of {@link #status} from
 * {@link #JOINING} or {@link #WAITING} to a final state, and the winner owns the consequences:
 * <ul>
 *   <li>{@link #GRANTED}: the granter registered the permit (in {@link #permit}) before the CAS; the owner must use
 *       or close it.</li>
 *   <li>{@link #CANCELLED} / {@link #TIMED_OUT} / {@link #UNAVAILABLE} won over {@link #WAITING}: the call is queued
 *       on the server, and the winner sends the release that removes it (or frees the slot if a grant raced).</li>
 *   <li>The same won over {@link #JOINING}: the acquire script may not have run yet, so nothing is sent now; the
 *       acquire's reply handler sends the release when the reply arrives (a command sent after a reply is executed
 *       after it), or puts the id among the orphans if the acquire failed and its outcome is unknown.</li>
 * </ul>
 * Fields other than {@link #status} are written before the CAS that publishes them and read after reading it.
 */
abstract class RemoteWaiter {

    static final int JOINING = 0;
    static final int WAITING = 1;
    static final int GRANTED = 2;
    static final int CANCELLED = 3;
    static final int TIMED_OUT = 4;
    static final int REFUSED = 5;
    static final int UNAVAILABLE = 6;

    private static final VarHandle STATUS;

    static {
        try {
            STATUS = MethodHandles.lookup().findVarHandle(RemoteWaiter.class, "status", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final ClusterBulkhead bulkhead;
    final String id;
    final CancellationSignal signal;
    /** Ticker reading just before the acquire script was sent. */
    final long startedAt;
    volatile int status;
    /** Ticker reading when the last request that renewed (or created) this waiter's lease was sent. */
    volatile long leaseRenewedAt;

    /** The maximum wait in force when the call was queued (0 for none); written before the CAS to WAITING. */
    long maxWaitNanos;
    /** Written before the CAS to GRANTED. */
    RemotePermit permit;
    /** Written before the CAS to GRANTED: the acquire itself took the slot, the call never queued. */
    boolean grantedOnArrival;
    /** Written before the CAS to REFUSED. */
    Rejection refusal;
    /** Written before the CAS to UNAVAILABLE. */
    Throwable failure;

    RemoteWaiter(ClusterBulkhead bulkhead, String id, CancellationSignal signal, long startedAt) {
        this.bulkhead = bulkhead;
        this.id = id;
        this.signal = signal;
        this.startedAt = startedAt;
        this.leaseRenewedAt = startedAt;
    }

    /** The acquire reply said "queued": JOINING to WAITING. Fails if the fate was decided meanwhile. */
    final boolean markWaiting(long maxWaitNanos) {
        this.maxWaitNanos = maxWaitNanos;
        return STATUS.compareAndSet(this, JOINING, WAITING);
    }

    /**
     * Decides the call's fate if it is still open.
     *
     * @return the status it had ({@link #JOINING} or {@link #WAITING}), or -1 when its fate was already decided
     */
    final int decide(int outcome) {
        for (;;) {
            int current = status;
            if (current > WAITING) {
                return -1;
            }
            if (STATUS.compareAndSet(this, current, outcome)) {
                return current;
            }
        }
    }

    /** Decides only if the call still waits in the queue (not while joining): for timeouts and lost places. */
    final boolean decideIfWaiting(int outcome) {
        return STATUS.compareAndSet(this, WAITING, outcome);
    }

    /** Tells the owner that the fate is decided. Called once, by the thread that decided it, outside any lock. */
    abstract void decided();

    /** Called when the call joined the queue: arms what may end its wait early. */
    abstract void nowWaiting();
}
