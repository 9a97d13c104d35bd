package dev.bulwark.internal.binding;

import dev.bulwark.TimeoutExceededException;
import dev.bulwark.TimeoutListener;
import java.util.Objects;
import java.util.function.LongConsumer;

/**
 * What both metrics back ends observe of a timeout, and when: each call counted once, {@code in_time} or
 * {@code timed_out}, and the duration of each call that ended in time recorded after its count. The back end supplies
 * only the increments and the recording (in its own unit) and names the series.
 *
 * <p>Thread-safe when the increments and the recording are (both back ends' are); allocates nothing per event.
 */
public final class TimeoutObserver extends AttachedListener implements TimeoutListener {

    private final String description;
    private final Runnable inTime;
    private final Runnable timedOut;
    private final LongConsumer inTimeNanos;

    /**
     * Creates the observer of one timeout.
     *
     * @param description what {@link #toString()} returns ("BulwarkMetrics timeout listener", say)
     * @param inTime the increment of the calls that ended before their deadline
     * @param timedOut the increment of the calls that reached their deadline
     * @param inTimeNanos records how long, in nanoseconds, a call that ended before its deadline took
     */
    public TimeoutObserver(String description, Runnable inTime, Runnable timedOut, LongConsumer inTimeNanos) {
        this.description = Objects.requireNonNull(description, "description");
        this.inTime = Objects.requireNonNull(inTime, "inTime");
        this.timedOut = Objects.requireNonNull(timedOut, "timedOut");
        this.inTimeNanos = Objects.requireNonNull(inTimeNanos, "inTimeNanos");
    }

    @Override
    public void timedOut(TimeoutExceededException exception) {
        timedOut.run();
    }

    @Override
    public void finishedInTime(long elapsedNanos) {
        inTime.run();
        inTimeNanos.accept(elapsedNanos);
    }

    @Override
    public String toString() {
        return description;
    }
}
