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
     * The division summed up so that any instance's target follows in O(1) from its demand and its place in the
     * order (see {@link #level}): {@code level} the water level (every demand above it is cut to it), or -1 when
     * every demand is met; {@code headroom} what each instance gets on top of its demand when every demand is met
     * (0 otherwise); {@code edge} the first position, in the order by demand then id, that gets one slot more (on the
     * level when demands are cut, on the headroom when they are met): the integer remainder of the split goes to the
     * last positions; {@code count} when there is none.
     */
    record Level(int level, int headroom, int edge) {
    }

    /**
     * Sums up {@link #shares} so that {@link #target} gives back each entry's share: for every {@code i < count},
     * {@code target(level, sortedDemands[i], i >= level.edge())} equals {@code shares(...)[i]}.
     *
     * <p>Why it exists: the renewal script recomputes it from the whole hash at most once per renewal period and
     * serves every other renewal from it in O(1). Why one level and one edge suffice: the per-instance share
     * {@code remaining / instances left} never decreases along the order (a met demand takes no more than the share);
     * so a met demand is at most the first cut one's share ({@code level}), and from the first cut instance on every
     * instance takes exactly that share, which is {@code level} and then, for the last {@code remaining mod left},
     * {@code level + 1}. When every demand is met, the headroom pass is the same split of the spare capacity.
     *
     * @param limit the fleet's limit
     * @param sortedDemands the live instances' demands, ascending (ties in the order of their ids)
     * @param count how many entries of {@code sortedDemands} are live, at least 1
     * @return the division's level, headroom and edge
     */
    static Level level(int limit, int[] sortedDemands, int count) {
        int[] shares = shares(limit, sortedDemands, count);
        for (int i = 0; i < count; i++) {
            if (shares[i] < sortedDemands[i]) {
                int level = shares[i];
                int edge = i;
                while (edge < count && shares[edge] == level) {
                    edge++;
                }
                return new Level(level, 0, edge);
            }
        }
        int headroom = shares[0] - sortedDemands[0];
        int edge = 0;
        while (edge < count && shares[edge] - sortedDemands[edge] == headroom) {
            edge++;
        }
        return new Level(-1, headroom, edge);
    }

    /**
     * An instance's target from a {@link #level}: {@code min(demand, level (+1 past the edge)) + headroom (+1 past
     * the edge)}. Exactly its {@link #shares} entry for an instance that was in the division with this demand; for
     * any other (one that joined or whose demand moved since) the same rule, which the free-capacity cap of
     * {@link #grant} keeps safe.
     *
     * @param level the division, from {@link #level}
     * @param demand the instance's demand now
     * @param pastEdge whether {@code (demand, id)} sorts at or after the edge's {@code (demand, id)}
     * @return the target
     */
    static int target(Level level, int demand, boolean pastEdge) {
        int extra = pastEdge ? 1 : 0;
        return level.level() < 0 ? demand + level.headroom() + extra : Math.min(demand, level.level() + extra);
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
