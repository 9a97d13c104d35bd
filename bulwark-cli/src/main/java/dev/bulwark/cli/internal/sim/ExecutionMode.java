package dev.bulwark.cli.internal.sim;

/** How each simulated call is run through the bulkhead. */
public enum ExecutionMode {

    /**
     * {@code Bulkhead.callAsync}: a call is a future completed by the simulated downstream's scheduler, so any
     * number of calls may be queued or in flight without a thread each.
     */
    ASYNC,

    /**
     * {@code Bulkhead.call} on a thread of its own per call (a virtual thread on JDK 21 and later, a platform
     * thread before), blocking while it waits for a slot and while the downstream serves it.
     */
    THREADS
}
