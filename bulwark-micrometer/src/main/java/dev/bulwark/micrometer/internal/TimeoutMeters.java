package dev.bulwark.micrometer.internal;

import static dev.bulwark.micrometer.MeterNames.TAG_OUTCOME;
import static dev.bulwark.micrometer.MeterNames.TIMEOUT_CALLS;
import static dev.bulwark.micrometer.MeterNames.TIMEOUT_EXECUTION;

import dev.bulwark.TimeoutExceededException;
import dev.bulwark.TimeoutListener;
import dev.bulwark.internal.binding.AttachedListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;

/** Records one timeout policy's events in its meters. Thread-safe: meters are. */
final class TimeoutMeters extends AttachedListener implements TimeoutListener {

    private final Counter inTime;
    private final Counter timedOut;
    private final Timer execution;

    private TimeoutMeters(MeterGroup group, Tags tags) {
        MeterRegistry registry = group.registry();
        inTime = group.add(calls(tags, "in_time").register(registry));
        timedOut = group.add(calls(tags, "timed_out").register(registry));
        execution = group.add(Timer.builder(TIMEOUT_EXECUTION).tags(tags)
                .description("How long calls that ended before their deadline took").register(registry));
    }

    /** Registers the meters of a timeout in {@code group} and returns the listener that feeds them. */
    static TimeoutMeters register(MeterGroup group, Tags tags) {
        return new TimeoutMeters(group, tags);
    }

    private static Counter.Builder calls(Tags tags, String outcome) {
        return Counter.builder(TIMEOUT_CALLS).tags(tags).tag(TAG_OUTCOME, outcome)
                .description("Calls through the timeout, by whether they ended before the deadline");
    }

    @Override
    public void timedOut(TimeoutExceededException exception) {
        timedOut.increment();
    }

    @Override
    public void finishedInTime(long elapsedNanos) {
        inTime.increment();
        execution.record(elapsedNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public String toString() {
        return "BulwarkMetrics timeout listener";
    }
}
