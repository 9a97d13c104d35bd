package dev.bulwark.opentelemetry.internal;

import static dev.bulwark.opentelemetry.InstrumentNames.TIMEOUT_CALLS;
import static dev.bulwark.opentelemetry.InstrumentNames.TIMEOUT_NAME;
import static dev.bulwark.opentelemetry.InstrumentNames.TIMEOUT_OUTCOME;

import dev.bulwark.TimeoutExceededException;
import dev.bulwark.TimeoutListener;
import dev.bulwark.internal.binding.AttachedListener;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleHistogram;
import java.util.concurrent.atomic.LongAdder;

/** Counts one timeout policy's outcomes in adders read at collection, and records in-time durations. Thread-safe. */
final class TimeoutInstruments extends AttachedListener implements TimeoutListener {

    private final LongAdder inTime = new LongAdder();
    private final LongAdder timedOut = new LongAdder();
    private final Attributes named;
    private final DoubleHistogram duration;

    private TimeoutInstruments(Attributes named, DoubleHistogram duration) {
        this.named = named;
        this.duration = duration;
    }

    static TimeoutInstruments register(Instruments instruments, String name, Observations observations) {
        Attributes named = Attributes.of(TIMEOUT_NAME, name);
        TimeoutInstruments listener = new TimeoutInstruments(named, instruments.timeoutDuration);
        Attributes inTimeAttributes = named.toBuilder().put(TIMEOUT_OUTCOME, "in_time").build();
        Attributes timedOutAttributes = named.toBuilder().put(TIMEOUT_OUTCOME, "timed_out").build();
        // The callback captures the adders, never the listener (which refers, through its subscription, to the
        // timeout).
        LongAdder inTime = listener.inTime;
        LongAdder timedOut = listener.timedOut;
        observations.add(instruments.meter().counterBuilder(TIMEOUT_CALLS).setUnit("{call}")
                .setDescription("Calls through the timeout, by whether they ended before the deadline")
                .buildWithCallback(measurement -> {
                    measurement.record(inTime.sum(), inTimeAttributes);
                    measurement.record(timedOut.sum(), timedOutAttributes);
                }));
        return listener;
    }

    @Override
    public void timedOut(TimeoutExceededException exception) {
        timedOut.increment();
    }

    @Override
    public void finishedInTime(long elapsedNanos) {
        inTime.increment();
        duration.record(Instruments.seconds(elapsedNanos), named);
    }

    @Override
    public String toString() {
        return "BulwarkTelemetry timeout listener";
    }
}
