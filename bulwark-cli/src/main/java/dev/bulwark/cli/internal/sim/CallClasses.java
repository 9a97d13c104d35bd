package dev.bulwark.cli.internal.sim;

import dev.bulwark.Bulkhead;
import dev.bulwark.CallOptions;
import dev.bulwark.CancellationSignal;
import dev.bulwark.Pipeline;
import dev.bulwark.Policy;
import dev.bulwark.Priority;
import dev.bulwark.ThrowingSupplier;
import dev.bulwark.Ticker;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Gives each call of a run its class (priority and weight, drawn from the {@link CallMix}) and the policy that makes
 * the call with those {@link CallOptions}, and counts the outcomes per class.
 *
 * <p><b>Determinism.</b> The n-th call (in the order calls are launched) draws its priority and its weight from two
 * numbers that depend only on the run's seed and on n (SplitMix64 of both), not on a shared generator whose state
 * would depend on which thread drew first. In virtual time, and for open-loop arrivals, the order of launches is
 * fixed by the seed, so the classes are too, and the report is the same byte for byte.
 *
 * <p><b>The per-call policy.</b> The bulkhead's {@code call}/{@code callAsync} with options are not part of
 * {@link Policy}, so each call gets a small {@link Policy} bound to its options (the pipeline's signal is passed on
 * in them), placed innermost in a pipeline with the run's retry and timeout. Its operation notes when the attempt
 * was admitted, for the per-class wait.
 *
 * <p>Thread-safe: the counter and the per-class counts are atomics, the waits HdrHistogram {@link Recorder}s.
 */
final class CallClasses {

    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

    private final CallMix mix;
    private final long seed;
    private final Bulkhead bulkhead;
    private final List<Policy> outerPolicies;
    private final Ticker ticker;
    private final AtomicLong launched = new AtomicLong();
    private final Map<Priority, ClassStats> byPriority = new LinkedHashMap<>();
    private final Map<Integer, ClassStats> byWeight = new LinkedHashMap<>();

    /**
     * @param mix the classes to draw from
     * @param seed the run's seed
     * @param bulkhead the bulkhead calls go through
     * @param outerPolicies the retry and timeout around it, outermost first; may be empty
     * @param ticker the run's clock
     */
    CallClasses(CallMix mix, long seed, Bulkhead bulkhead, List<Policy> outerPolicies, Ticker ticker) {
        this.mix = mix;
        this.seed = seed;
        this.bulkhead = bulkhead;
        this.outerPolicies = List.copyOf(outerPolicies);
        this.ticker = ticker;
        // The maps are filled here and only read afterwards, so reading them from many threads is safe.
        mix.priorityMix().ifPresent(priorities -> priorities.entries().forEach(entry ->
                byPriority.put(entry.value(), new ClassStats(entry.value().name().toLowerCase(Locale.ROOT)))));
        mix.weightMix().ifPresent(weights -> weights.entries().forEach(entry ->
                byWeight.put(entry.value(), new ClassStats(String.valueOf(entry.value())))));
    }

    /**
     * Draws the class of the next call.
     *
     * @param scheduled the call's priority when its arrival fixed it (a schedule's lane), or {@code null} to draw
     *     it from the priority mix
     * @return the call, which must be told its outcome once
     */
    Call next(Priority scheduled) {
        long index = launched.getAndIncrement();
        Priority priority = scheduled != null ? scheduled
                : mix.priorityMix().map(m -> m.draw(uniform(2 * index))).orElse(Priority.NORMAL);
        int weight = mix.weightMix().map(m -> m.draw(uniform(2 * index + 1))).orElse(1);
        return new Call(CallOptions.builder().priority(priority).weight(weight).build(),
                byPriority.get(priority), byWeight.get(weight));
    }

    /** A number in [0, 1) fixed by the seed and {@code stream}: SplitMix64's output function. */
    private double uniform(long stream) {
        long z = seed + (stream + 1) * GOLDEN_GAMMA;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z ^= z >>> 31;
        return (z >>> 11) * 0x1.0p-53;
    }

    /**
     * Returns the outcomes per priority.
     *
     * @return the breakdown, or empty without a priority mix
     */
    Optional<ClassBreakdown> byPriority() {
        return breakdown("priority", byPriority);
    }

    /**
     * Returns the outcomes per weight.
     *
     * @return the breakdown, or empty without a weight mix
     */
    Optional<ClassBreakdown> byWeight() {
        return breakdown("weight", byWeight);
    }

    private static Optional<ClassBreakdown> breakdown(String dimension, Map<?, ClassStats> stats) {
        if (stats.isEmpty()) {
            return Optional.empty();
        }
        List<ClassBreakdown.Row> rows = new ArrayList<>();
        stats.values().forEach(s -> rows.add(s.row()));
        return Optional.of(new ClassBreakdown(dimension, rows));
    }

    /** One call of a class: its policy, and where its outcome is counted. */
    final class Call {
        private final CallOptions options;
        private final ClassStats priorityStats;
        private final ClassStats weightStats;
        private final AtomicBoolean admitted = new AtomicBoolean();

        private Call(CallOptions options, ClassStats priorityStats, ClassStats weightStats) {
            this.options = options;
            this.priorityStats = priorityStats;
            this.weightStats = weightStats;
            if (priorityStats != null) {
                priorityStats.offered.incrementAndGet();
            }
            if (weightStats != null) {
                weightStats.offered.incrementAndGet();
            }
        }

        /**
         * Returns the policies this call goes through: the run's retry and timeout around the bulkhead called with
         * this call's options.
         *
         * @return a policy for this call only
         */
        Policy policy() {
            Policy bound = new OptionsBoundBulkhead(this);
            if (outerPolicies.isEmpty()) {
                return bound;
            }
            List<Policy> all = new ArrayList<>(outerPolicies);
            all.add(bound);
            return Pipeline.of(all.toArray(new Policy[0]));
        }

        /**
         * Counts how the call ended. Call once.
         *
         * @param outcome the outcome
         * @param arrivalNanos when the call arrived, on the run's clock: a completed call's end-to-end latency is
         *     measured from there
         */
        void finished(CallOutcome outcome, long arrivalNanos) {
            if (outcome == CallOutcome.COMPLETED) {
                long micros = Math.max(0L, (ticker.read() - arrivalNanos) / 1_000L);
                if (priorityStats != null) {
                    priorityStats.endToEndMicros.recordValue(micros);
                }
                if (weightStats != null) {
                    weightStats.endToEndMicros.recordValue(micros);
                }
            }
            if (priorityStats != null) {
                priorityStats.outcomes.incrementAndGet(outcome.ordinal());
            }
            if (weightStats != null) {
                weightStats.outcomes.incrementAndGet(outcome.ordinal());
            }
        }

        private void admittedAfter(long attemptStartNanos) {
            if (admitted.compareAndSet(false, true)) {
                long waitedMicros = Math.max(0L, (ticker.read() - attemptStartNanos) / 1_000L);
                if (priorityStats != null) {
                    priorityStats.admitted(waitedMicros);
                }
                if (weightStats != null) {
                    weightStats.admitted(waitedMicros);
                }
            }
        }

        private CallOptions options(CancellationSignal signal) {
            return options.toBuilder().signal(signal).build();
        }
    }

    /** The bulkhead as a {@link Policy} that makes every attempt with one call's options. */
    private final class OptionsBoundBulkhead implements Policy {
        private final Call call;

        OptionsBoundBulkhead(Call call) {
            this.call = call;
        }

        @Override
        public <T, X extends Throwable> T call(ThrowingSupplier<? extends T, X> operation, CancellationSignal signal)
                throws X {
            long start = ticker.read();
            return bulkhead.call(call.options(signal), () -> {
                call.admittedAfter(start);
                return operation.get();
            });
        }

        @Override
        public <T> CompletableFuture<T> callAsync(Supplier<? extends CompletionStage<T>> operation,
                                                  CancellationSignal signal) {
            long start = ticker.read();
            return bulkhead.callAsync(call.options(signal), () -> {
                call.admittedAfter(start);
                return operation.get();
            });
        }
    }

    /** The counts of one class. */
    private static final class ClassStats {
        private final String label;
        private final AtomicLong offered = new AtomicLong();
        private final AtomicLong admitted = new AtomicLong();
        private final AtomicLongArray outcomes = new AtomicLongArray(CallOutcome.values().length);
        private final Recorder waitMicros = new Recorder(3);
        private final Recorder endToEndMicros = new Recorder(3);

        ClassStats(String label) {
            this.label = label;
        }

        void admitted(long waitedMicros) {
            admitted.incrementAndGet();
            waitMicros.recordValue(waitedMicros);
        }

        /** The row of the report; call once, after every call has ended. */
        ClassBreakdown.Row row() {
            long[] counts = new long[outcomes.length()];
            for (int i = 0; i < counts.length; i++) {
                counts[i] = outcomes.get(i);
            }
            Histogram waits = waitMicros.getIntervalHistogram();
            return new ClassBreakdown.Row(label, new OutcomeCounts(offered.get(), counts), admitted.get(),
                    LatencySummary.ofMicros(waits), LatencySummary.ofMicros(endToEndMicros.getIntervalHistogram()));
        }
    }
}
