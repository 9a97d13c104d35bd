package dev.bulwark.micrometer.internal;

import static dev.bulwark.micrometer.MeterNames.TAG_OUTCOME;
import static dev.bulwark.micrometer.MeterNames.TIMEOUT_CALLS;
import static dev.bulwark.micrometer.MeterNames.TIMEOUT_EXECUTION;

import dev.bulwark.internal.binding.TimeoutObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;

/**
 * One timeout policy's meters, fed by core's {@link TimeoutObserver}; this class only registers them. Thread-safe:
 * meters are.
 */
final class TimeoutMeters {

    private TimeoutMeters() {
    }

    /** Registers the meters of a timeout in {@code group} and returns the listener that feeds them. */
    static TimeoutObserver register(MeterGroup group, Tags tags) {
        MeterRegistry registry = group.registry();
        Counter inTime = group.add(calls(tags, "in_time").register(registry));
        Counter timedOut = group.add(calls(tags, "timed_out").register(registry));
        Timer execution = group.add(Timer.builder(TIMEOUT_EXECUTION).tags(tags)
                .description("How long calls that ended before their deadline took").register(registry));
        return new TimeoutObserver("BulwarkMetrics timeout listener", inTime::increment, timedOut::increment,
                nanos -> execution.record(nanos, TimeUnit.NANOSECONDS));
    }

    private static Counter.Builder calls(Tags tags, String outcome) {
        return Counter.builder(TIMEOUT_CALLS).tags(tags).tag(TAG_OUTCOME, outcome)
                .description("Calls through the timeout, by whether they ended before the deadline");
    }
}
