package dev.bulwark.cli.internal.sim;

/**
 * The events a bulkhead reported to its listener during a run. Immutable.
 *
 * @param admitted calls that got a slot
 * @param admittedAfterWaiting of those, calls that waited in the queue first
 * @param rejectedQueueFull refusals because the queue was full
 * @param rejectedWaitTimeout refusals because the maximum wait passed
 * @param rejectedEvicted refusals of waiters a newer call evicted (LIFO queue order)
 * @param rejectedOtherwise refusals for any other reason (none is expected from the simulated bulkhead)
 * @param cancelledWhileQueued calls that left the queue because they were cancelled
 * @param released slots given back
 */
public record BulkheadEventCounts(long admitted, long admittedAfterWaiting, long rejectedQueueFull,
                                  long rejectedWaitTimeout, long rejectedEvicted, long rejectedOtherwise,
                                  long cancelledWhileQueued,
                                  long released) {
}
