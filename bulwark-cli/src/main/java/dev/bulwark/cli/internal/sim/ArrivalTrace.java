package dev.bulwark.cli.internal.sim;

import java.util.Arrays;

/**
 * Arrival times recorded elsewhere, replayed by the simulator instead of drawn: each call arrives at its offset from
 * the run's start, in the lane of a {@link LoadSchedule} it is given. So a run can be simulated on exactly the
 * arrivals a real load generator made (the lab's), rather than on another draw of the same Poisson process, whose
 * count over a short stage differs by several percent. Immutable: the arrays are copied in and never handed out.
 */
public final class ArrivalTrace {

    private final long[] offsetsNanos;
    private final int[] lanes;

    /**
     * Makes a trace from arrivals in time order.
     *
     * @param offsetsNanos each arrival's time since the run's start, in nanoseconds, not decreasing, none negative
     * @param lanes each arrival's lane, an index into the schedule's {@link LoadSchedule#lanes()}; as many as
     *     offsets
     * @throws NullPointerException when either array is {@code null}
     * @throws IllegalArgumentException when their lengths differ, an offset is negative or below the one before it,
     *     or a lane is negative
     */
    public ArrivalTrace(long[] offsetsNanos, int[] lanes) {
        if (offsetsNanos.length != lanes.length) {
            throw new IllegalArgumentException("lanes must have one entry per offset (" + offsetsNanos.length
                    + ") but has " + lanes.length);
        }
        this.offsetsNanos = offsetsNanos.clone();
        this.lanes = lanes.clone();
        for (int i = 0; i < this.offsetsNanos.length; i++) {
            if (this.offsetsNanos[i] < 0 || i > 0 && this.offsetsNanos[i] < this.offsetsNanos[i - 1]) {
                throw new IllegalArgumentException("offsetsNanos must be in time order and not negative, but entry "
                        + i + " is " + this.offsetsNanos[i]);
            }
            if (this.lanes[i] < 0) {
                throw new IllegalArgumentException("lanes must not be negative, but entry " + i + " is "
                        + this.lanes[i]);
            }
        }
    }

    /**
     * Merges each lane's arrivals into one trace in time order (a tie keeps the lower lane first).
     *
     * @param offsetsByLane per lane, in lane order, its arrivals' offsets in nanoseconds, in any order
     * @return the trace
     * @throws IllegalArgumentException when an offset is negative
     */
    public static ArrivalTrace ofLanes(long[]... offsetsByLane) {
        int count = 0;
        for (long[] offsets : offsetsByLane) {
            count += offsets.length;
        }
        long[][] pairs = new long[count][];
        int next = 0;
        for (int lane = 0; lane < offsetsByLane.length; lane++) {
            for (long offset : offsetsByLane[lane]) {
                pairs[next++] = new long[] {offset, lane};
            }
        }
        Arrays.sort(pairs, (a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
        long[] offsets = new long[count];
        int[] lanes = new int[count];
        for (int i = 0; i < count; i++) {
            offsets[i] = pairs[i][0];
            lanes[i] = (int) pairs[i][1];
        }
        return new ArrivalTrace(offsets, lanes);
    }

    /**
     * Returns how many arrivals the trace holds.
     *
     * @return zero or more
     */
    public int size() {
        return offsetsNanos.length;
    }

    /**
     * Returns an arrival's time since the run's start.
     *
     * @param index the arrival, from 0 to {@link #size()} − 1
     * @return nanoseconds
     */
    public long offsetNanos(int index) {
        return offsetsNanos[index];
    }

    /**
     * Returns an arrival's lane.
     *
     * @param index the arrival, from 0 to {@link #size()} − 1
     * @return an index into the schedule's lanes
     */
    public int lane(int index) {
        return lanes[index];
    }

    /**
     * Returns the highest lane any arrival is in.
     *
     * @return −1 when the trace is empty
     */
    int highestLane() {
        return Arrays.stream(lanes).max().orElse(-1);
    }

    @Override
    public String toString() {
        return "ArrivalTrace[" + size() + " arrivals]";
    }
}
