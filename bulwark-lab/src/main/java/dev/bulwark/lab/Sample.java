package dev.bulwark.lab;

/**
 * One request of the load generator.
 *
 * @param sentNanos when the request was due, from the start of the schedule (its Poisson arrival time, not when the
 *     generator got round to sending it, so that a late generator cannot hide latency)
 * @param latencyNanos from {@code sentNanos} to the answer, or to the client's timeout
 * @param outcome how it ended
 */
record Sample(long sentNanos, long latencyNanos, Outcome outcome) {
}
