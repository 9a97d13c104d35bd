package dev.bulwark.opentelemetry.internal;

import static dev.bulwark.opentelemetry.InstrumentNames.TIMEOUT_CALLS;
import static dev.bulwark.opentelemetry.InstrumentNames.TIMEOUT_NAME;
import static dev.bulwark.opentelemetry.InstrumentNames.TIMEOUT_OUTCOME;

import dev.bulwark.internal.binding.TimeoutObserver;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleHistogram;
import java.util.concurrent.atomic.LongAdder;

/**
 * One timeout policy's instruments: outcome adders read at collection and the shared in-time duration histogram, fed
 * by core's {@link TimeoutObserver}; this class only registers them. Thread-safe; allocates nothing per call.
 */
final class TimeoutInstruments {

    private TimeoutInstruments() {
    }

    /** Registers the instruments of the timeout called {@code name} and returns the listener that feeds them. */
    static TimeoutObserver register(Instruments instruments, String name, Observations observations) {
        Attributes named = Attributes.of(TIMEOUT_NAME, name);
        LongAdder inTime = new LongAdder();
        LongAdder timedOut = new LongAdder();
        Attributes inTimeAttributes = named.toBuilder().put(TIMEOUT_OUTCOME, "in_time").build();
        Attributes timedOutAttributes = named.toBuilder().put(TIMEOUT_OUTCOME, "timed_out").build();
        // The callback captures the adders, never the listener (which refers, through its subscription, to the
        // timeout).
        observations.add(instruments.meter().counterBuilder(TIMEOUT_CALLS).setUnit("{call}")
                .setDescription("Calls through the timeout, by whether they ended before the deadline")
                .buildWithCallback(measurement -> {
                    measurement.record(inTime.sum(), inTimeAttributes);
                    measurement.record(timedOut.sum(), timedOutAttributes);
                }));
        DoubleHistogram duration = instruments.timeoutDuration;
        return new TimeoutObserver("BulwarkTelemetry timeout listener", inTime::increment, timedOut::increment,
                nanos -> duration.record(Instruments.seconds(nanos), named));
    }
}
