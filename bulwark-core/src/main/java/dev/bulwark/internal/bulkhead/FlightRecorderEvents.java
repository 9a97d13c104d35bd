package dev.bulwark.internal.bulkhead;

import dev.bulwark.Rejection;
import java.lang.invoke.MethodHandles;
import java.util.concurrent.atomic.AtomicBoolean;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * JDK Flight Recorder events of the bulkhead: one per rejection and one per wait in a queue, enabled by default so
 * that {@code -XX:StartFlightRecording} records them with no code change. Only slow paths (a refusal, a wait)
 * create events; an admission with a free slot records nothing.
 *
 * <p><b>Set-up off the caller's path.</b> Loading the first {@link Event} class of a JVM sets up Flight Recorder's
 * metadata, which takes 100 to 200 ms when no recording is running. A caller's first refusal or wait must not pay
 * that (it would overrun its max wait), so the events stay off until {@link #prepare()}, called by every bulkhead's
 * construction, has loaded their classes: at once when Flight Recorder is already initialized (a recording runs,
 * and loading costs about 10 ms), otherwise on a one-shot daemon thread. Until then a refusal or a wait records no
 * event; a recording started before the first bulkhead is built therefore misses none.
 */
public final class FlightRecorderEvents {

    /**
     * The logger, looked up when first needed: finding the logging back end costs milliseconds (a service look-up)
     * that neither {@code build()} nor a caller's first call should pay for a failure that may never come.
     */
    private static final class Log {
        static final System.Logger LOGGER = System.getLogger("dev.bulwark");

        private Log() {
        }
    }

    /** Whether {@link #prepare()} has been asked once in this JVM: the set-up runs once. */
    private static final AtomicBoolean PREPARING = new AtomicBoolean();

    /**
     * Whether the event classes are loaded and initialized. Written once, from false to true, after that; until
     * then no method here touches an event class, so no caller's thread can end up loading one.
     */
    private static volatile boolean ready;

    static final String ADMITTED = "admitted";
    static final String CANCELLED = "cancelled";
    static final String TIMED_OUT = "timed out";
    static final String EVICTED = "evicted";
    static final String CLOSED = "closed";
    static final String WEIGHT_EXCEEDS_LIMIT = "weight exceeds limit";

    /** The wait event's outcome of a waiter pushed out of the queue for {@code reason}. */
    static String pushedOut(dev.bulwark.Rejection.Reason reason) {
        switch (reason) {
            case CLOSED:
                return CLOSED;
            case WEIGHT_EXCEEDS_LIMIT:
                return WEIGHT_EXCEEDS_LIMIT;
            default:
                return EVICTED;
        }
    }

    private FlightRecorderEvents() {
    }

    /**
     * Loads the event classes once per JVM, off the caller's thread unless Flight Recorder is already initialized.
     * Cheap after the first call (one volatile read). Never throws: events that cannot be set up stay off, and the
     * failure is logged.
     */
    public static void prepare() {
        if (ready || !PREPARING.compareAndSet(false, true)) {
            return;
        }
        if (FlightRecorder.isInitialized()) {
            load();
            return;
        }
        Thread loader = new Thread(FlightRecorderEvents::load, "bulwark-jfr-setup");
        loader.setDaemon(true);
        loader.start();
    }

    /** Whether events are recorded from now on (the set-up of {@link #prepare()} has finished). */
    static boolean ready() {
        return ready;
    }

    private static void load() {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            lookup.ensureInitialized(RejectionEvent.class);
            lookup.ensureInitialized(WaitEvent.class);
            ready = true;
        } catch (ReflectiveOperationException | RuntimeException | LinkageError failure) {
            Log.LOGGER.log(System.Logger.Level.WARNING,
                    "Bulwark's Flight Recorder events could not be set up; none will be recorded", failure);
        }
    }

    static void rejected(Rejection rejection) {
        if (!ready) {
            return;
        }
        RejectionEvent event = new RejectionEvent();
        if (event.shouldCommit()) {
            event.bulkhead = rejection.bulkheadName();
            event.reason = rejection.reason().name();
            event.maxConcurrency = rejection.maxConcurrency();
            event.maxQueue = rejection.maxQueue();
            event.executing = rejection.executingCount();
            event.queued = rejection.queuedCount();
            event.waited = rejection.waited().toNanos();
            event.commit();
        }
    }

    /** The same as {@link #rejected(Rejection)} for a refusal whose {@code Rejection} is not built (no wait). */
    static void rejected(Rejection template, int executing, int queued) {
        if (!ready) {
            return;
        }
        RejectionEvent event = new RejectionEvent();
        if (event.shouldCommit()) {
            event.bulkhead = template.bulkheadName();
            event.reason = template.reason().name();
            event.maxConcurrency = template.maxConcurrency();
            event.maxQueue = template.maxQueue();
            event.executing = executing;
            event.queued = queued;
            event.waited = 0L;
            event.commit();
        }
    }

    /** Starts timing a wait; returns {@code null} when the wait event is not being recorded. */
    static Object beginWait(String bulkhead, int queuedAhead) {
        if (!ready) {
            return null;
        }
        WaitEvent event = new WaitEvent();
        if (!event.isEnabled()) {
            return null;
        }
        event.bulkhead = bulkhead;
        event.queuedAhead = queuedAhead;
        event.begin();
        return event;
    }

    /** Ends a wait started by {@link #beginWait}; does nothing for {@code null}. */
    static void endWait(Object recording, String outcome) {
        if (recording != null) {
            WaitEvent event = (WaitEvent) recording;
            event.end();
            if (event.shouldCommit()) {
                event.outcome = outcome;
                event.commit();
            }
        }
    }

    @Name("dev.bulwark.BulkheadRejection")
    @Label("Bulkhead Rejection")
    @Category("Bulwark")
    @Description("A bulkhead refused a call: its queue was full or the call waited too long")
    @StackTrace(false)
    static final class RejectionEvent extends Event {
        @Label("Bulkhead")
        String bulkhead;
        @Label("Reason")
        String reason;
        @Label("Max Concurrency")
        int maxConcurrency;
        @Label("Max Queue")
        int maxQueue;
        @Label("Executing")
        int executing;
        @Label("Queued")
        int queued;
        @Label("Waited")
        @Timespan(Timespan.NANOSECONDS)
        long waited;
    }

    @Name("dev.bulwark.BulkheadWait")
    @Label("Bulkhead Wait")
    @Category("Bulwark")
    @Description("A call waited in a bulkhead's queue; the event's duration is the wait")
    @StackTrace(false)
    static final class WaitEvent extends Event {
        @Label("Bulkhead")
        String bulkhead;
        @Label("Queued Ahead")
        @Description("How many calls were already waiting when this one joined the queue")
        int queuedAhead;
        @Label("Outcome")
        @Description("admitted, cancelled, timed out, evicted, closed or weight exceeds limit")
        String outcome;
    }
}
