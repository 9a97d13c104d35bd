package dev.bulwark.redis.testing;

import static dev.bulwark.redis.testing.FleetWorker.nowMicros;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

/**
 * One failover under load, measured: the fleet runs steadily for two seconds, {@code failover} kills the master
 * and waits for its replacement, the fleet runs on until every JVM admitted again and two more seconds, then stops.
 * What the calls logged gives the excess over the limit, its duration and the time until the fleet admitted again.
 */
public final class FailoverReport {

    /** Kills the master and returns once the deployment has promoted a replica. */
    @FunctionalInterface
    public interface Failover {
        void run() throws Exception;
    }

    private final int limit;
    private final long killedAt;
    private final long promotedAt;
    private final long everyWorkerAdmittedAt;
    private final List<Fleet.Done> tallies;
    private final CallLog log;
    private final CallLog.Excess excess;

    private FailoverReport(int limit, long killedAt, long promotedAt, long everyWorkerAdmittedAt,
            List<Fleet.Done> tallies, CallLog log) {
        this.limit = limit;
        this.killedAt = killedAt;
        this.promotedAt = promotedAt;
        this.everyWorkerAdmittedAt = everyWorkerAdmittedAt;
        this.tallies = tallies;
        this.log = log;
        this.excess = log.excess(limit);
    }

    /** Runs the scenario on a started fleet whose bulkhead has the given limit. */
    public static FailoverReport run(Fleet fleet, int limit, Failover failover) throws Exception {
        long loadStarted = nowMicros();
        fleet.awaitEveryWorkerStartedAfter(loadStarted + 2_000_000, Duration.ofSeconds(60));
        long killedAt = nowMicros();
        failover.run();
        long promotedAt = nowMicros();
        fleet.awaitEveryWorkerStartedAfter(promotedAt, Duration.ofSeconds(60));
        long everyWorkerAdmittedAt = nowMicros();
        fleet.awaitEveryWorkerStartedAfter(everyWorkerAdmittedAt + 2_000_000, Duration.ofSeconds(60));
        List<Fleet.Done> tallies = fleet.stop(Duration.ofSeconds(60));
        return new FailoverReport(limit, killedAt, promotedAt, everyWorkerAdmittedAt, tallies, fleet.log());
    }

    public CallLog log() {
        return log;
    }

    public CallLog.Excess excess() {
        return excess;
    }

    /** From the kill to the first start of a call asked for after it. */
    public Duration recovery() {
        long first = log.firstStartAskedAfter(killedAt);
        assertThat(first).as("no call ran after the kill").isPositive();
        return Duration.ofNanos((first - killedAt) * 1_000);
    }

    /**
     * The longest time after the kill during which no call of {@code worker} (of any, when negative) started,
     * up to two seconds after every JVM admitted again (each one started a call after that, so a pause cannot run
     * past it).
     */
    public CallLog.Pause pauseAfterKill(int worker) {
        return log.longestPause(killedAt, everyWorkerAdmittedAt + 2_000_000, worker);
    }

    /** The longest pause in admissions of any one JVM after the kill. */
    public CallLog.Pause longestWorkerPause() {
        CallLog.Pause longest = new CallLog.Pause(0, killedAt);
        for (int worker = 0; worker < log.workers(); worker++) {
            CallLog.Pause pause = pauseAfterKill(worker);
            if (pause.micros() > longest.micros()) {
                longest = pause;
            }
        }
        return longest;
    }

    /** Every call logged once, every tally adds up, every admission released. */
    public void assertAccountedFor() {
        assertThat(log.eachCallOnceWithoutGaps()).as("every call logged exactly once").isTrue();
        long attempts = 0;
        long completed = 0;
        for (Fleet.Done tally : tallies) {
            assertThat(tally.completed() + tally.refused() + tally.errors()).as("tally " + tally)
                    .isEqualTo(tally.attempts());
            assertThat(tally.errors()).as("errors other than rejections, " + tally).isZero();
            assertThat(tally.admitted()).as("admissions, " + tally).isEqualTo(tally.completed());
            assertThat(tally.released()).as("releases, " + tally).isEqualTo(tally.completed());
            attempts += tally.attempts();
            completed += tally.completed();
        }
        assertThat(log.calls()).hasSize((int) attempts);
        assertThat(log.count("OK")).isEqualTo(completed);
    }

    /** Prints the measurements, for the docs. */
    public void print(String deployment) {
        System.out.printf("%s failover, limit %d: calls %d (ran %d, refused %d: %s); most in flight %d "
                        + "(%d over the limit), %.1f ms above the limit in %d episode(s)%s; master promoted %.0f ms "
                        + "after the kill; first admission %.0f ms after the kill; every JVM admitting %.0f ms "
                        + "after the kill%n",
                deployment, limit, log.calls().size(), log.count("OK"), log.calls().size() - log.count("OK"),
                refusals(), excess.maxInFlight(), excess.overLimit(limit), excess.microsAboveLimit() / 1000.0,
                excess.episodes(), excess.firstAbove() < 0 ? "" : String.format(" (from %+.0f ms to %+.0f ms of "
                        + "the kill)", (excess.firstAbove() - killedAt) / 1000.0,
                        (excess.lastAbove() - killedAt) / 1000.0),
                (promotedAt - killedAt) / 1000.0, recovery().toNanos() / 1e6,
                (everyWorkerAdmittedAt - killedAt) / 1000.0);
        CallLog.Pause fleetPause = pauseAfterKill(-1);
        CallLog.Pause workerPause = longestWorkerPause();
        System.out.printf("%s failover: longest pause in admissions after the kill: fleet-wide %.0f ms (until "
                        + "%+.0f ms of the kill), one JVM %.0f ms (until %+.0f ms of the kill)%n", deployment,
                fleetPause.micros() / 1000.0, (fleetPause.endedAt() - killedAt) / 1000.0,
                workerPause.micros() / 1000.0, (workerPause.endedAt() - killedAt) / 1000.0);
    }

    private String refusals() {
        StringBuilder out = new StringBuilder();
        log.calls().stream().filter(c -> !c.ran()).collect(java.util.stream.Collectors.groupingBy(
                CallLog.Call::outcome, java.util.TreeMap::new, java.util.stream.Collectors.counting()))
                .forEach((reason, count) -> out.append(out.length() == 0 ? "" : ", ").append(reason).append(' ')
                        .append(count));
        return out.length() == 0 ? "none" : out.toString();
    }
}
