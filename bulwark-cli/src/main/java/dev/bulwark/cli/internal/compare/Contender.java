package dev.bulwark.cli.internal.compare;

import com.netflix.concurrency.limits.Limit;
import com.netflix.concurrency.limits.Limiter;
import com.netflix.concurrency.limits.limit.AIMDLimit;
import com.netflix.concurrency.limits.limit.Gradient2Limit;
import com.netflix.concurrency.limits.limit.VegasLimit;
import com.netflix.concurrency.limits.limiter.SimpleLimiter;
import dev.bulwark.AdaptiveLimit;
import dev.bulwark.Bulkhead;
import dev.bulwark.Permit;
import dev.bulwark.cli.internal.sim.VirtualClock;
import java.util.List;
import java.util.Optional;
import java.util.function.IntFunction;

/**
 * A limiter that {@code bulwark compare} puts in front of the downstream: Bulwark's adaptive algorithms and fixed
 * limits (each a real {@link Bulkhead} with no queue, on the virtual clock), or one of Netflix's concurrency-limits
 * algorithms in their {@code SimpleLimiter} (given the virtual clock as its {@code nanoClock}). Immutable; each run
 * opens a fresh {@link Gate}.
 *
 * @param name the name reports show
 * @param family {@code bulwark}, {@code netflix} or {@code fixed}
 * @param factory opens a gate starting at the given limit, on the given clock
 */
public record Contender(String name, String family, Factory factory) {

    /** Opens a gate for one run. */
    @FunctionalInterface
    public interface Factory {
        /**
         * Opens a gate.
         *
         * @param startLimit the scenario's starting limit
         * @param clock the run's virtual clock
         * @return a new gate
         */
        Gate open(int startLimit, VirtualClock clock);
    }

    /** The limiter as a run uses it. Single-threaded, like the run. */
    public interface Gate {
        /**
         * Asks to start a call.
         *
         * @return the ticket to hand back when the call ends, or {@code null} when refused
         */
        Ticket tryEnter();

        /**
         * Returns the current limit.
         *
         * @return at least 1
         */
        int limit();
    }

    /** An admitted call. */
    public interface Ticket {
        /**
         * Ends the call.
         *
         * @param dropped whether it timed out (overload) rather than succeeded
         */
        void done(boolean dropped);
    }

    /**
     * A real bulkhead with no queue and the given adaptive limit.
     *
     * @param name the report name
     * @param limit the adaptive limit, made for a starting limit
     * @return the contender
     */
    public static Contender bulwark(String name, IntFunction<AdaptiveLimit> limit) {
        return new Contender(name, "bulwark", (start, clock) -> bulkheadGate(Bulkhead.builder().maxConcurrency(start)
                .maxQueue(0).adaptive(limit.apply(start)).ticker(clock).scheduler(clock).build()));
    }

    /**
     * A real bulkhead with no queue and a fixed limit.
     *
     * @param limit the limit
     * @return the contender
     */
    public static Contender fixed(int limit) {
        return new Contender("fixed " + limit, "fixed", (start, clock) -> bulkheadGate(Bulkhead.builder()
                .maxConcurrency(limit).maxQueue(0).ticker(clock).scheduler(clock).build()));
    }

    private static Gate bulkheadGate(Bulkhead bulkhead) {
        return new Gate() {
            @Override
            public Ticket tryEnter() {
                Optional<Permit> permit = bulkhead.tryAcquire();
                return permit.<Ticket>map(p -> dropped -> p.close(dropped ? Permit.Outcome.DROPPED
                        : Permit.Outcome.SUCCESS)).orElse(null);
            }

            @Override
            public int limit() {
                return bulkhead.maxConcurrency();
            }
        };
    }

    /**
     * Netflix's {@code SimpleLimiter} around one of their limits.
     *
     * @param name the report name
     * @param limit makes the limit for a starting limit
     * @return the contender
     */
    public static Contender netflix(String name, IntFunction<Limit> limit) {
        return new Contender(name, "netflix", (start, clock) -> {
            SimpleLimiter<Void> limiter = SimpleLimiter.newBuilder().named("compare").limit(limit.apply(start))
                    .nanoClock(clock::read).build();
            return new Gate() {
                @Override
                public Ticket tryEnter() {
                    Optional<Limiter.Listener> listener = limiter.acquire(null);
                    return listener.<Ticket>map(l -> dropped -> {
                        if (dropped) {
                            l.onDropped();
                        } else {
                            l.onSuccess();
                        }
                    }).orElse(null);
                }

                @Override
                public int limit() {
                    return limiter.getLimit();
                }
            };
        });
    }

    /**
     * The adaptive limiters every comparison runs: Bulwark's three with their defaults (and AIMD with a
     * threshold of 1.25 times the mean service time, the simulator's own default, for reference), and
     * Netflix's Gradient2, Vegas and AIMD with theirs. Each starts at the scenario's starting limit.
     *
     * @param meanServiceNanos the scenario's mean service time, for the tuned AIMD only
     * @return the contenders
     */
    public static List<Contender> adaptive(double meanServiceNanos) {
        return List.of(
                bulwark("bulwark selfTuning()", start -> AdaptiveLimit.selfTuning().build()),
                bulwark("bulwark gradient()", start -> AdaptiveLimit.gradient().build()),
                bulwark("bulwark aimd()", start -> AdaptiveLimit.aimd().build()),
                bulwark("bulwark aimd(1.25x mean)", start -> AdaptiveLimit.aimd().latencyThreshold(
                        java.time.Duration.ofNanos(Math.round(1.25 * meanServiceNanos))).build()),
                netflix("netflix Gradient2", start -> Gradient2Limit.newBuilder().initialLimit(start).build()),
                netflix("netflix Vegas", start -> VegasLimit.newBuilder().initialLimit(start).build()),
                netflix("netflix AIMD", start -> AIMDLimit.newBuilder().initialLimit(start).build()));
    }

    /**
     * The contenders of {@code --grid}: {@link #adaptive} and Netflix's Gradient2 with {@code minLimit(1)}. Most
     * grid scenarios have a capacity of 20, which is Gradient2's default floor: its default cannot go below the
     * answer, so the variant without a floor shows what the algorithm itself finds (issue 41's rule: where a
     * default's floor equals the capacity, its {@code minLimit(1)} variant stands in for it).
     *
     * @param meanServiceNanos the scenario's mean service time, for the tuned AIMD only
     * @return the contenders
     */
    public static List<Contender> forGrid(double meanServiceNanos) {
        List<Contender> contenders = new java.util.ArrayList<>(adaptive(meanServiceNanos));
        contenders.add(netflix("netflix Gradient2 minLimit(1)", start -> Gradient2Limit.newBuilder()
                .initialLimit(start).minLimit(1).build()));
        return List.copyOf(contenders);
    }
}
