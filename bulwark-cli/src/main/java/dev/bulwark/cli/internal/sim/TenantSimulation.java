package dev.bulwark.cli.internal.sim;

import dev.bulwark.AdaptiveLimit;
import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.PartitionedBulkhead;
import dev.bulwark.Rejection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/**
 * The per-tenant ("noisy tenant") run of {@code bulwark simulate --tenants N}: the real {@link PartitionedBulkhead}
 * (one partition per tenant, under a global limit, with fair shares unless global FIFO is asked for) driven in
 * virtual time by Poisson arrivals per tenant. Tenant 0 is the noisy one: it sends {@code noisyFactor} times the
 * rate of each other tenant (0: it sends nothing).
 *
 * <p>Without a downstream capacity the downstream is a pure delay: a call admitted by both limits runs for its
 * sampled service time whatever the load (the global limit is what protects the downstream's capacity then; the
 * run is about who waits for it). With one, the downstream is the simulator's {@link VirtualDownstream}, the
 * {@link ProcessorSharingModel} that plain {@code simulate} runs against: beyond its capacity every call slows
 * down, so latency rises with the load and an adaptive global limit has something to react to. A call's wait is
 * the virtual time from its arrival to the start of its operation; refused calls are counted by reason. Everything
 * runs on the calling thread, on one {@link VirtualClock}, so a run is a pure function of its settings and seed.
 */
public final class TenantSimulation {

    /**
     * What a tenant run needs.
     *
     * @param tenants the number of tenants, at least 1
     * @param noisyFactor tenant 0's rate over each other tenant's (1: no noise; 0: tenant 0 sends nothing)
     * @param ratePerTenant each other tenant's arrival rate
     * @param serviceTime the work per call
     * @param limit each tenant's partition limit
     * @param noisyLimit tenant 0's partition limit
     * @param queue each tenant's partition queue
     * @param maxWait each tenant's (and the global) maximum wait, or {@code null} for none
     * @param globalLimit the global limit (with {@code adaptive}, its starting value)
     * @param adaptive the global limit's adaptive algorithm, or {@code null} for a fixed global limit
     * @param fairShares fair shares ({@code true}) or global FIFO
     * @param downstreamCapacity the calls the downstream serves at full speed at once, or {@code null} for a
     *     pure-delay downstream
     * @param degradation how steeply an overloaded downstream's throughput falls (see
     *     {@link ProcessorSharingModel}); ignored without a capacity
     * @param duration how long calls arrive
     * @param seed the seed of the arrival and service times
     */
    public record Settings(int tenants, double noisyFactor, Rate ratePerTenant, Distribution serviceTime, int limit,
                           int noisyLimit, int queue, Duration maxWait, int globalLimit, AdaptiveLimit adaptive,
                           boolean fairShares, Integer downstreamCapacity, double degradation, Duration duration,
                           long seed) {
        /** Checks the settings. */
        public Settings {
            Objects.requireNonNull(ratePerTenant, "ratePerTenant");
            if (downstreamCapacity != null && downstreamCapacity < 1) {
                throw new IllegalArgumentException("downstreamCapacity must be at least 1 but was "
                        + downstreamCapacity);
            }
            Objects.requireNonNull(serviceTime, "serviceTime");
            Objects.requireNonNull(duration, "duration");
            if (tenants < 1) {
                throw new IllegalArgumentException("tenants must be at least 1 but was " + tenants);
            }
            if (!(noisyFactor >= 0) || Double.isInfinite(noisyFactor)) {
                throw new IllegalArgumentException("noisyFactor must be a finite number >= 0 but was " + noisyFactor);
            }
        }

        /**
         * Returns the global limit's algorithm as {@code --adaptive} names it.
         *
         * @return {@code self-tuning}, {@code aimd} or {@code gradient}, or empty for a fixed global limit
         */
        public Optional<String> adaptiveAlgorithm() {
            return Optional.ofNullable(adaptive).map(BulkheadSettings::algorithmName);
        }
    }

    /**
     * One tenant's outcomes.
     *
     * @param tenant the tenant's index (0 is the noisy one)
     * @param arrivals calls made
     * @param served calls that ran
     * @param refused refused calls by reason
     * @param waitsNanos the served calls' waits, sorted
     */
    public record TenantOutcome(int tenant, long arrivals, long served, Map<Rejection.Reason, Long> refused,
                                long[] waitsNanos) {

        /**
         * Returns a wait percentile (nearest rank) of the served calls.
         *
         * @param percentile in (0, 100]
         * @return the wait, or {@link Duration#ZERO} when none was served
         */
        public Duration waitPercentile(double percentile) {
            return percentileOf(waitsNanos, percentile);
        }
    }

    /**
     * A run's result.
     *
     * @param settings what was run
     * @param tenants each tenant's outcomes, tenant 0 first
     * @param othersWaitsNanos the waits of every served call of the tenants other than 0, sorted
     * @param globalLimit the global limit's range while calls arrived, sampled every 100 ms of virtual time
     * @param downstreamPeakInFlight the most calls the downstream ever had in flight at once
     */
    public record Result(Settings settings, List<TenantOutcome> tenants, long[] othersWaitsNanos,
                         LimitRange globalLimit, int downstreamPeakInFlight) {

        /**
         * Returns a wait percentile of the other tenants' served calls, pooled.
         *
         * @param percentile in (0, 100]
         * @return the wait
         */
        public Duration othersWaitPercentile(double percentile) {
            return percentileOf(othersWaitsNanos, percentile);
        }
    }

    /**
     * The range a limit kept while calls arrived.
     *
     * @param lowest its lowest sample
     * @param highest its highest sample
     * @param mean the mean of its samples
     */
    public record LimitRange(int lowest, int highest, double mean) {
    }

    /** How often the global limit is sampled for {@link Result#globalLimit()}. */
    private static final long LIMIT_SAMPLE_NANOS = 100_000_000L;

    private final Settings settings;
    private final VirtualClock clock = new VirtualClock();
    /** The capacity-bound downstream, or {@code null} for a pure delay. */
    private final VirtualDownstream downstream;
    /** The pure-delay downstream's calls in flight now and at most (the capacity model counts its own). */
    private int delayInFlight;
    private int delayPeakInFlight;

    /**
     * Prepares a run.
     *
     * @param settings the settings
     */
    public TenantSimulation(Settings settings) {
        this.settings = settings;
        this.downstream = settings.downstreamCapacity() == null ? null
                : new VirtualDownstream(settings.downstreamCapacity(), settings.degradation(), 0, clock);
    }

    /**
     * Runs until every call has ended.
     *
     * @return the outcomes
     */
    public Result run() {
        int queue = settings.queue();
        Bulkhead.Builder global = Bulkhead.builder().name("global").maxConcurrency(settings.globalLimit())
                .maxQueue(Math.max(1, settings.tenants() * queue)).ticker(clock).scheduler(clock);
        if (settings.adaptive() != null) {
            // The partitioned bulkhead reports every call's outcome to its global bulkhead too, fair shares or not.
            global.adaptive(settings.adaptive());
        }
        Bulkhead.Builder partition = Bulkhead.builder().maxConcurrency(settings.limit()).maxQueue(queue)
                .ticker(clock).scheduler(clock);
        if (settings.maxWait() != null) {
            global.maxWait(settings.maxWait());
            partition.maxWait(settings.maxWait());
        }
        dev.bulwark.BulkheadConfig noisyConfig = partition.config().toBuilder().maxConcurrency(settings.noisyLimit())
                .config();
        PartitionedBulkhead.Builder<Integer> builder = PartitionedBulkhead.<Integer>builder().name("tenants")
                .defaultConfig(partition.config())
                .configFor(tenant -> tenant == 0 ? noisyConfig : null).ticker(clock).scheduler(clock);
        if (settings.fairShares()) {
            builder.fairShares();
        }
        Bulkhead globalBulkhead = global.build();
        builder.globalLimit(globalBulkhead);
        PartitionedBulkhead<Integer> tenants = builder.build();

        Tally[] tallies = new Tally[settings.tenants()];
        SplittableRandom root = new SplittableRandom(settings.seed());
        long end = settings.duration().toNanos();
        for (int tenant = 0; tenant < settings.tenants(); tenant++) {
            tallies[tenant] = new Tally();
            double factor = tenant == 0 ? settings.noisyFactor() : 1.0;
            SplittableRandom gaps = root.split();
            SplittableRandom services = root.split();
            if (factor > 0) {
                Arrival arrival = new Arrival(tenants, tenant, services, tallies[tenant]);
                new VirtualPoissonArrivals(clock, settings.ratePerTenant().meanIntervalNanos() / factor, gaps, end,
                        arrival).start();
            }
        }
        LimitSampler limits = new LimitSampler(globalBulkhead, end);
        limits.run();
        for (;;) {
            long next = downstream == null ? clock.nextTaskAt()
                    : Math.min(clock.nextTaskAt(), downstream.nextFinishAt());
            if (next == Long.MAX_VALUE) {
                break;
            }
            clock.moveTo(next);
            if (downstream != null) {
                downstream.finishDue();
            }
            clock.runDueBy(next);
        }
        List<TenantOutcome> outcomes = new ArrayList<>();
        List<long[]> others = new ArrayList<>();
        for (int tenant = 0; tenant < tallies.length; tenant++) {
            TenantOutcome outcome = tallies[tenant].outcome(tenant);
            outcomes.add(outcome);
            if (tenant > 0) {
                others.add(outcome.waitsNanos());
            }
        }
        int peak = downstream == null ? delayPeakInFlight : downstream.takeStatistics().peakInFlight();
        return new Result(settings, List.copyOf(outcomes), sortedConcat(others), limits.range(), peak);
    }

    /** Starts a call's work: on the capacity model, or as a pure delay. */
    private CompletableFuture<Void> work(long serviceNanos) {
        if (downstream != null) {
            return downstream.call(serviceNanos);
        }
        CompletableFuture<Void> work = new CompletableFuture<>();
        delayInFlight++;
        delayPeakInFlight = Math.max(delayPeakInFlight, delayInFlight);
        clock.schedule(() -> {
            delayInFlight--;
            work.complete(null);
        }, serviceNanos, TimeUnit.NANOSECONDS);
        return work;
    }

    /** Samples the global limit every {@link #LIMIT_SAMPLE_NANOS} while calls arrive; then stops, so the run ends. */
    private final class LimitSampler implements Runnable {
        private final Bulkhead global;
        private final long end;
        private int lowest = Integer.MAX_VALUE;
        private int highest;
        private long sum;
        private long samples;

        LimitSampler(Bulkhead global, long end) {
            this.global = global;
            this.end = end;
        }

        @Override
        public void run() {
            int limit = global.maxConcurrency();
            lowest = Math.min(lowest, limit);
            highest = Math.max(highest, limit);
            sum += limit;
            samples++;
            if (clock.read() + LIMIT_SAMPLE_NANOS <= end) {
                clock.schedule(this, LIMIT_SAMPLE_NANOS, TimeUnit.NANOSECONDS);
            }
        }

        LimitRange range() {
            return new LimitRange(lowest, highest, (double) sum / samples);
        }
    }

    /** One arrival of a tenant's call (its Poisson timing is {@link VirtualPoissonArrivals}'). */
    private final class Arrival implements Runnable {
        private final PartitionedBulkhead<Integer> tenants;
        private final int tenant;
        private final SplittableRandom services;
        private final Tally tally;

        Arrival(PartitionedBulkhead<Integer> tenants, int tenant, SplittableRandom services, Tally tally) {
            this.tenants = tenants;
            this.tenant = tenant;
            this.services = services;
            this.tally = tally;
        }

        @Override
        public void run() {
            long arrival = clock.read();
            long service = settings.serviceTime().sampleNanos(services);
            tally.arrivals++;
            tenants.callAsync(tenant, () -> {
                tally.waits.add(clock.read() - arrival);
                return work(service);
            }).whenComplete((ignored, failure) -> {
                if (failure == null) {
                    tally.served++;
                    return;
                }
                Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
                Rejection.Reason reason = cause instanceof BulkheadRejectedException
                        ? ((BulkheadRejectedException) cause).rejection().reason() : Rejection.Reason.UNAVAILABLE;
                tally.refused.merge(reason, 1L, Long::sum);
            });
        }
    }

    /** One tenant's counts; touched only by the event loop's thread. */
    private static final class Tally {
        long arrivals;
        long served;
        final Map<Rejection.Reason, Long> refused = new EnumMap<>(Rejection.Reason.class);
        final LongList waits = new LongList();

        TenantOutcome outcome(int tenant) {
            long[] sorted = waits.toArray();
            Arrays.sort(sorted);
            return new TenantOutcome(tenant, arrivals, served, Map.copyOf(refused), sorted);
        }
    }

    /** A growable list of longs. */
    private static final class LongList {
        private long[] values = new long[1024];
        private int size;

        void add(long value) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = value;
        }

        long[] toArray() {
            return Arrays.copyOf(values, size);
        }
    }

    private static long[] sortedConcat(List<long[]> parts) {
        int total = 0;
        for (long[] part : parts) {
            total += part.length;
        }
        long[] all = new long[total];
        int at = 0;
        for (long[] part : parts) {
            System.arraycopy(part, 0, all, at, part.length);
            at += part.length;
        }
        Arrays.sort(all);
        return all;
    }

    static Duration percentileOf(long[] sorted, double percentile) {
        if (sorted.length == 0) {
            return Duration.ZERO;
        }
        int rank = (int) Math.ceil(percentile / 100.0 * sorted.length);
        return Duration.ofNanos(sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]);
    }
}
