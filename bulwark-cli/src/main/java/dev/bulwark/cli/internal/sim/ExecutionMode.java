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
    THREADS,

    /**
     * {@code Bulkhead.callAsync} as in {@link #ASYNC}, but in virtual time: a discrete-event loop moves a
     * simulated clock from event to event (arrivals, completions, the bulkhead's wait timeouts, timeouts and
     * retry delays), driving the real bulkhead through its {@code Ticker} and {@code Scheduler} seams. The same
     * seed gives the same report, byte for byte, and a run takes as long as its events take to compute.
     */
    VIRTUAL_TIME
}
