package dev.bulwark.lab;

import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;

/**
 * The completed calls of one dependency and how long they took: their count, their total time, and the first two
 * moments of their times' logarithms, from which a window of calls gets its mean and the spread of a log-normal
 * fitted to it ({@link Snapshot#logSigma()}) without keeping every sample.
 *
 * <p>Thread-safe and wait-free to record (adders). A {@link #snapshot()} reads the four sums one after another: taken
 * while calls complete it may count a call in one sum and not yet in another, so the lab takes its snapshots while
 * no call is in flight (between the probe's steps).
 */
final class CallTimes {

    private final LongAdder calls = new LongAdder();
    private final LongAdder nanos = new LongAdder();
    private final DoubleAdder logSum = new DoubleAdder();
    private final DoubleAdder logSquareSum = new DoubleAdder();

    /**
     * Counts a completed call.
     *
     * @param elapsedNanos how long it took, at least 1 ns is counted
     */
    void record(long elapsedNanos) {
        long positive = Math.max(1, elapsedNanos);
        double log = Math.log(positive);
        calls.increment();
        nanos.add(positive);
        logSum.add(log);
        logSquareSum.add(log * log);
    }

    /**
     * Returns the sums so far.
     *
     * @return a snapshot; subtract an earlier one ({@link Snapshot#since}) for a window
     */
    Snapshot snapshot() {
        return new Snapshot(calls.sum(), nanos.sum(), logSum.sum(), logSquareSum.sum());
    }

    /**
     * The sums of a set of calls.
     *
     * @param calls how many
     * @param nanos their total time
     * @param logSum the sum of the natural logarithms of their times in nanoseconds
     * @param logSquareSum the sum of those logarithms' squares
     */
    record Snapshot(long calls, long nanos, double logSum, double logSquareSum) {

        /**
         * Returns the calls counted here and not in an earlier snapshot.
         *
         * @param earlier a snapshot of the same {@link CallTimes}, taken before this one
         * @return the window between them
         */
        Snapshot since(Snapshot earlier) {
            return new Snapshot(calls - earlier.calls, nanos - earlier.nanos, logSum - earlier.logSum,
                    logSquareSum - earlier.logSquareSum);
        }

        /**
         * Returns the calls' mean time.
         *
         * @return milliseconds; 0 when there was no call
         */
        double meanMillis() {
            return calls == 0 ? 0 : nanos / 1e6 / calls;
        }

        /**
         * Returns the standard deviation of the calls' log times: the {@code sigma} of the log-normal distribution
         * that fits them (0 when every call took as long, about 1 for times as spread as an exponential's).
         *
         * @return at least 0; 0 with fewer than two calls
         */
        double logSigma() {
            if (calls < 2) {
                return 0;
            }
            double mean = logSum / calls;
            return Math.sqrt(Math.max(0, logSquareSum / calls - mean * mean));
        }
    }
}
