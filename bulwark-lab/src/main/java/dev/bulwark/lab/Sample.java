package dev.bulwark.lab;

/**
 * One request of the load generator.
 *
 * @param sentNanos when the request was due, from the start of the schedule (its Poisson arrival time, not when the
 *     generator got round to sending it, so that a late generator cannot hide latency)
 * @param latencyNanos from {@code sentNanos} to the answer, or to the client's timeout
 * @param outcome how it ended
 * @param lagNanos how late the generator handed the request to the client, after {@code sentNanos}: large values
 *     mean the generator itself was short of CPU, and the run's latencies are not the service's alone
 */
record Sample(long sentNanos, long latencyNanos, Outcome outcome, long lagNanos) {
}
