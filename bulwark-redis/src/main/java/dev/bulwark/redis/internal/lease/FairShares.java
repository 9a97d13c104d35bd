package dev.bulwark.redis.internal.lease;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The leased mode's division of the fleet's limit, in Java: the twin of the arithmetic in
 * {@link LeaseScripts#RENEW}, which the tests check the script against on a real Redis (and on which an in-memory
 * store for simulations is built: {@link LeaseTable}). Pure functions.
 */
final class FairShares {

    private FairShares() {
    }

    /**
     * Divides {@code limit} among the instances by demand: max-min fair (water-filling: in order of demand, then of
     * id, each gets {@code min(demand, remaining / instances left)}), then what no demand takes split the same way
     * as headroom. The targets sum to {@code limit} whenever there is at least one instance.
     *
     * @param limit the fleet's limit
     * @param demands each live instance's demand, by id
     * @return each instance's target, by id
     */
    static Map<String, Integer> targets(int limit, Map<String, Integer> demands) {
        List<String> ids = new ArrayList<>(demands.keySet());
        ids.sort((a, b) -> {
            int byDemand = Integer.compare(demands.get(a), demands.get(b));
            return byDemand != 0 ? byDemand : a.compareTo(b);
        });
        int[] sorted = new int[ids.size()];
        for (int i = 0; i < sorted.length; i++) {
            sorted[i] = demands.get(ids.get(i));
        }
        int[] shares = shares(limit, sorted, sorted.length);
        Map<String, Integer> targets = new HashMap<>();
        for (int i = 0; i < sorted.length; i++) {
            targets.put(ids.get(i), shares[i]);
        }
        return targets;
    }

    /**
     * The division itself, on demands already in the script's order (by demand, then by id): the first
     * {@code count} entries of {@code sortedDemands}. {@link #targets} and {@link LeaseTable} both use it, so the
     * idea has one implementation.
     *
     * @param limit the fleet's limit
     * @param sortedDemands the live instances' demands, ascending (ties in the order of their ids)
     * @param count how many entries of {@code sortedDemands} are live
     * @return the targets, in the same order
     */
    static int[] shares(int limit, int[] sortedDemands, int count) {
        int[] shares = new int[count];
        int remaining = limit;
        for (int i = 0; i < count; i++) {
            int share = Math.min(sortedDemands[i], Math.floorDiv(remaining, count - i));
            shares[i] = share;
            remaining -= share;
        }
        for (int i = 0; i < count; i++) {
            int headroom = Math.floorDiv(remaining, count - i);
            shares[i] += headroom;
            remaining -= headroom;
        }
        return shares;
    }

    /**
     * An instance's grant: its target, but never more than the capacity the other instances' records leave free
     * (growth only from free capacity), and never negative.
     *
     * @param target the instance's target ({@link #targets})
     * @param limit the fleet's limit
     * @param othersRecorded the blocks recorded for the other live instances
     * @return the grant
     */
    static int grant(int target, int limit, int othersRecorded) {
        return Math.max(0, Math.min(target, limit - othersRecorded));
    }

    /**
     * What the script records for an instance: its grant, or its holding while that is larger (the shrink's first
     * phase).
     */
    static int record(int grant, int holding) {
        return Math.max(grant, holding);
    }
}
