package dev.bulwark.cli.internal.sim;

import dev.bulwark.Priority;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What kinds of calls a run makes: the distribution of their {@link Priority} and of their weight (slots per
 * call), and the bulkhead's reserved headroom per priority. Immutable. Each call draws its priority and its weight
 * from numbers fixed by the run's seed and the call's place in the order of arrivals (see {@link CallClasses}).
 *
 * @param priorities the priority of each call, or {@code null}: every call {@code NORMAL}
 * @param weights the weight of each call, or {@code null}: every call weight 1
 * @param reserves slots kept for a priority and those above it ({@code Bulkhead.Builder.reserve}); may be empty
 */
public record CallMix(Mix<Priority> priorities, Mix<Integer> weights, Map<Priority, Integer> reserves) {

    /**
     * Checks the mix.
     *
     * @throws IllegalArgumentException when a weight is less than 1 or a reserve is negative
     * @throws NullPointerException when {@code reserves} is {@code null}
     */
    public CallMix {
        Objects.requireNonNull(reserves, "reserves");
        EnumMap<Priority, Integer> copy = new EnumMap<>(Priority.class);
        copy.putAll(reserves);
        reserves = java.util.Collections.unmodifiableMap(copy);
        if (weights != null) {
            for (Mix.Entry<Integer> entry : weights.entries()) {
                if (entry.value() < 1) {
                    throw new IllegalArgumentException("weight must be at least 1 but was " + entry.value());
                }
            }
        }
        for (Map.Entry<Priority, Integer> reserve : reserves.entrySet()) {
            if (reserve.getValue() < 0) {
                throw new IllegalArgumentException("reserve of " + reserve.getKey() + " must not be negative");
            }
        }
    }

    /**
     * Returns the priority mix.
     *
     * @return the mix, or empty when every call is {@code NORMAL}
     */
    public Optional<Mix<Priority>> priorityMix() {
        return Optional.ofNullable(priorities);
    }

    /**
     * Returns the weight mix.
     *
     * @return the mix, or empty when every call has weight 1
     */
    public Optional<Mix<Integer>> weightMix() {
        return Optional.ofNullable(weights);
    }

    /**
     * Returns the heaviest weight a call may draw.
     *
     * @return at least 1
     */
    public int maxWeight() {
        return weights == null ? 1 : weights.entries().stream().mapToInt(Mix.Entry::value).max().orElse(1);
    }

    /**
     * Returns the headroom of the lowest priority a call may draw: the reserves of every priority above it, the
     * slots such a call must leave free ({@code BulkheadConfig.headroom}). A weight above the limit less this could
     * never run.
     *
     * @return at least 0
     */
    public int lowestHeadroom() {
        // Priorities are ordered from CRITICAL down: the lowest drawn is the greatest.
        Priority lowest = priorities == null ? Priority.NORMAL : priorities.entries().stream().map(Mix.Entry::value)
                .max(Comparator.naturalOrder()).orElse(Priority.CRITICAL);
        return reserves.entrySet().stream().filter(reserve -> reserve.getKey().compareTo(lowest) < 0)
                .mapToInt(Map.Entry::getValue).sum();
    }

    /**
     * Describes the mix for a report's header.
     *
     * @return for example {@code priorities critical:20%,normal:80%; weights 1:90%,4:10%; reserve critical:2}
     */
    public String describe() {
        StringBuilder text = new StringBuilder();
        if (priorities != null) {
            text.append("priorities ").append(priorities.spec());
        }
        if (weights != null) {
            text.append(text.length() > 0 ? "; " : "").append("weights ").append(weights.spec());
        }
        if (!reserves.isEmpty()) {
            text.append(text.length() > 0 ? "; " : "").append("reserve ");
            StringBuilder list = new StringBuilder();
            reserves.forEach((priority, slots) -> list.append(list.length() > 0 ? "," : "")
                    .append(priority.name().toLowerCase(java.util.Locale.ROOT)).append(':').append(slots));
            text.append(list);
        }
        return text.toString();
    }
}
