package dev.bulwark.cli.internal.sim;

import java.util.List;
import java.util.PriorityQueue;

/**
 * The simulated downstream's arithmetic: a processor-sharing server that thrashes when overloaded, driven by
 * explicit timestamps so that it can be tested without a clock. Not thread-safe: {@link SimulatedDownstream}
 * guards it with a lock and drives it from real time.
 *
 * <h2>The model</h2>
 * <p>Each call brings an amount of <em>work</em>: its service time on an unloaded downstream, drawn from the
 * service-time distribution. With {@code n} calls in flight and a capacity of {@code c}:
 * <ul>
 *   <li>{@code n <= c}: every call progresses at full speed, so it takes exactly its service time (a database
 *       with {@code c} cores and spare ones).</li>
 *   <li>{@code n > c}: the downstream's total rate of work falls to {@code c / (1 + d (n - c) / c)} calls'
 *       worth, shared equally by the {@code n} calls, so each progresses at speed
 *       {@code (c / n) / (1 + d (n - c) / c)}. The {@code c / n} part is fair sharing (on its own it would only
 *       make calls wait); the {@code 1 + d (n - c) / c} part is thrashing (lock contention, context switches,
 *       cache and buffer-pool misses): every call beyond capacity makes all the work less efficient. With the
 *       default degradation {@code d = 1}, twice the capacity in flight halves the downstream's throughput and
 *       makes each call four times slower; ten times the capacity makes it 100 times slower.</li>
 * </ul>
 * <p>Speeds change whenever a call starts or ends, and apply to calls already in progress, as they do on a real
 * saturated server. Because all calls share one speed, the model keeps a single <em>virtual clock</em>: the
 * amount of work a call present since time 0 would have received. It advances at the current speed; a call that
 * starts when the virtual clock reads {@code v} with work {@code w} finishes when it reads {@code v + w}. Calls
 * therefore finish in order of {@code v + w}, kept in a priority queue: starting and finishing a call cost
 * {@code O(log n)}, and 100 000 calls in flight are no burden.
 *
 * <p>A <em>contention</em> {@code k} (0 by default) slows calls below capacity too, as Amdahl's law does: with
 * {@code m = min(n, c)} calls progressing, each does so at {@code 1 / (1 + k (m - 1))} of full speed (beyond capacity,
 * times the speed above), so {@code m} calls together complete {@code m / (1 + k (m - 1))} calls' worth, which grows
 * with every call but less and less: a database whose calls serialise in part (locks, latches, its log, shared
 * cores), whose throughput with two clients is well under twice that with one. {@code k} is the serial fraction; 0
 * leaves the model as described above.
 *
 * <p>With {@code d = 0} this is a plain processor-sharing queue: throughput holds at capacity and overload shows
 * as ever-growing latency. With {@code d > 0} overload also destroys throughput (goodput collapse), which is
 * what a bulkhead prevents by never letting more than its limit reach the downstream.
 *
 * @param <P> what the caller attaches to each call (the future to complete)
 */
public final class ProcessorSharingModel<P> {

    /**
     * A call ends when less than this much wall time of work is left: waking up for the last microseconds
     * would cost more than the error.
     */
    private static final long FINISH_TOLERANCE_NANOS = 20_000L;

    private int capacity;
    /** A factor on every call's speed: 1 normally, less during a slow period, 0 while paused. */
    private double speedFactor = 1.0;
    private final double degradation;
    private final double contention;
    private final PriorityQueue<Job<P>> jobs = new PriorityQueue<>();

    private long now;
    /** Work received by a call present since the start, in nanoseconds of unloaded service. */
    private double virtualTime;
    private long nextSequence;
    private int peakInFlight;
    /** The integral of the number of calls in flight over time, in call-nanoseconds (Little's L times time). */
    private double inFlightIntegral;

    /**
     * Creates an idle downstream without contention.
     *
     * @param capacity how many calls run at full speed at once, at least 1
     * @param degradation how steeply throughput falls beyond capacity, finite and at least 0
     * @param startNanos the time of creation, on the same clock as every later argument
     * @throws IllegalArgumentException when {@code capacity} or {@code degradation} is out of range
     */
    public ProcessorSharingModel(int capacity, double degradation, long startNanos) {
        this(capacity, degradation, 0, startNanos);
    }

    /**
     * Creates an idle downstream.
     *
     * @param capacity how many calls progress without thrashing at once, at least 1
     * @param degradation how steeply throughput falls beyond capacity, finite and at least 0
     * @param contention the serial fraction that slows every call when several progress, finite and at least 0
     * @param startNanos the time of creation, on the same clock as every later argument
     * @throws IllegalArgumentException when {@code capacity}, {@code degradation} or {@code contention} is out of
     *     range
     */
    public ProcessorSharingModel(int capacity, double degradation, double contention, long startNanos) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1 but was " + capacity);
        }
        if (!(degradation >= 0) || Double.isInfinite(degradation)) {
            throw new IllegalArgumentException("degradation must be finite and at least 0 but was " + degradation);
        }
        if (!(contention >= 0) || Double.isInfinite(contention)) {
            throw new IllegalArgumentException("contention must be finite and at least 0 but was " + contention);
        }
        this.capacity = capacity;
        this.degradation = degradation;
        this.contention = contention;
        this.now = startNanos;
    }

    /**
     * Returns how fast each call progresses when {@code inFlight} calls share the downstream.
     *
     * @param inFlight the number of calls in flight, at least 1
     * @return the fraction of full speed: without contention 1 at or below capacity and less beyond; with it,
     *     less than 1 as soon as two calls progress
     */
    public double speed(int inFlight) {
        int progressing = Math.min(inFlight, capacity);
        double contended = 1.0 / (1.0 + contention * (progressing - 1));
        if (inFlight <= capacity) {
            return contended;
        }
        double overload = (double) (inFlight - capacity) / capacity;
        return contended * ((double) capacity / inFlight) / (1.0 + degradation * overload);
    }

    /**
     * Starts a call.
     *
     * @param at the current time, not before the previous call to this model (earlier is taken as equal)
     * @param workNanos the call's service time on an unloaded downstream, at least 0
     * @param payload what to hand back when the call ends
     * @return the nanoseconds from {@code at} until this call would end if nothing else changed
     */
    public long start(long at, long workNanos, P payload) {
        advanceTo(at);
        Job<P> job = new Job<>(virtualTime + Math.max(0L, workNanos), nextSequence++, now, payload);
        jobs.add(job);
        peakInFlight = Math.max(peakInFlight, jobs.size());
        return wallNanosUntil(job.finishVirtualTime);
    }

    /**
     * Ends every call whose work is done by {@code at}.
     *
     * @param at the current time
     * @param done receives the ended calls, earliest first
     */
    public void finishDue(long at, List<? super Job<P>> done) {
        advanceTo(at);
        while (!jobs.isEmpty()) {
            Job<P> first = jobs.peek();
            if (wallNanosUntil(first.finishVirtualTime) > FINISH_TOLERANCE_NANOS) {
                break;
            }
            done.add(jobs.poll());
        }
    }

    /**
     * Returns how long from the last time given to this model until the next call ends, if nothing starts
     * meanwhile.
     *
     * @return nanoseconds, or {@link Long#MAX_VALUE} when no call is in flight
     */
    public long nanosUntilNextFinish() {
        Job<P> first = jobs.peek();
        return first == null ? Long.MAX_VALUE : wallNanosUntil(first.finishVirtualTime);
    }

    /**
     * Ends every call at once, finished or not (the run is over).
     *
     * @param at the current time
     * @param removed receives the calls that were in flight
     */
    public void removeAll(long at, List<? super Job<P>> removed) {
        advanceTo(at);
        while (!jobs.isEmpty()) {
            removed.add(jobs.poll());
        }
    }

    /**
     * Moves the model's time forward without starting or ending anything (to close the in-flight integral).
     *
     * @param at the current time
     */
    public void advanceTo(long at) {
        if (at <= now) {
            return;
        }
        long elapsed = at - now;
        int inFlight = jobs.size();
        if (inFlight > 0) {
            inFlightIntegral += (double) inFlight * elapsed;
            virtualTime += speedFactor * speed(inFlight) * elapsed;
        }
        now = at;
    }

    /**
     * Changes the capacity from {@code at} on (a resource that lost or gained cores, replicas or connections):
     * work done so far is kept, and calls in flight continue at the speed the new capacity gives.
     *
     * @param at the current time
     * @param newCapacity at least 1
     * @throws IllegalArgumentException when {@code newCapacity} is less than 1
     */
    public void changeCapacity(long at, int newCapacity) {
        if (newCapacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1 but was " + newCapacity);
        }
        advanceTo(at);
        capacity = newCapacity;
    }

    /**
     * Slows every call down by a factor from {@code at} on, or pauses them all (a garbage-collection pause, a noisy
     * neighbour): work done so far is kept, and calls in flight continue at the new speed.
     *
     * @param at the current time
     * @param factor the fraction of the normal speed, from 0 (paused) to 1 (normal)
     * @throws IllegalArgumentException when {@code factor} is outside [0, 1]
     */
    public void changeSpeed(long at, double factor) {
        if (!(factor >= 0 && factor <= 1)) {
            throw new IllegalArgumentException("speed factor must be within [0, 1] but was " + factor);
        }
        advanceTo(at);
        speedFactor = factor;
    }

    /**
     * Returns the number of calls in flight.
     *
     * @return at least 0
     */
    public int inFlight() {
        return jobs.size();
    }

    /**
     * Returns the most calls that were ever in flight at once.
     *
     * @return at least 0
     */
    public int peakInFlight() {
        return peakInFlight;
    }

    /**
     * Returns the time integral of the number of calls in flight up to the last time given to this model.
     *
     * @return call-nanoseconds
     */
    public double inFlightIntegral() {
        return inFlightIntegral;
    }

    private long wallNanosUntil(double finishVirtualTime) {
        double remaining = finishVirtualTime - virtualTime;
        if (remaining <= 0) {
            return 0L;
        }
        // While paused (factor 0) this is infinite: the next finish is "never" until the speed comes back.
        double wall = remaining / (speedFactor * speed(jobs.size()));
        return wall >= Long.MAX_VALUE / 2.0 ? Long.MAX_VALUE / 2 : (long) Math.ceil(wall);
    }

    /**
     * A call in flight.
     *
     * @param <P> the caller's attachment
     */
    public static final class Job<P> implements Comparable<Job<P>> {
        private final double finishVirtualTime;
        private final long sequence;
        private final long startedAt;
        private final P payload;

        Job(double finishVirtualTime, long sequence, long startedAt, P payload) {
            this.finishVirtualTime = finishVirtualTime;
            this.sequence = sequence;
            this.startedAt = startedAt;
            this.payload = payload;
        }

        /**
         * Returns when the call started.
         *
         * @return the time given to {@link ProcessorSharingModel#start}
         */
        public long startedAt() {
            return startedAt;
        }

        /**
         * Returns the caller's attachment.
         *
         * @return the payload given to {@link ProcessorSharingModel#start}
         */
        public P payload() {
            return payload;
        }

        @Override
        public int compareTo(Job<P> other) {
            int byFinish = Double.compare(finishVirtualTime, other.finishVirtualTime);
            return byFinish != 0 ? byFinish : Long.compare(sequence, other.sequence);
        }
    }
}
