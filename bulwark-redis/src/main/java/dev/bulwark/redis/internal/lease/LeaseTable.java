package dev.bulwark.redis.internal.lease;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The leased mode's hash and expiry set held in memory: the Java twin of {@link LeaseScripts#RENEW} (the record per
 * instance, the running sums, the expired instances dropped through the set by expiry, the division by
 * {@link FairShares} recomputed at most once per period and served from its cached {@link FairShares.Level} between,
 * growth only from free capacity, the record {@code max(grant, holding)}), for simulations in virtual time.
 * {@code LeaseScriptOracleTest} checks it against the script on a real Redis. The clock is the caller's: each call
 * says what time it is, in milliseconds, where the script reads the server's {@code TIME}.
 *
 * <p>Not thread-safe: one thread (a simulation's event loop) uses it. A renewal costs what the script's does:
 * O(log instances) (at most {@link #DROPS_PER_RENEWAL} expired instances dropped), except the one per period that
 * recomputes the division, O(instances × log instances).
 */
final class LeaseTable {

    /** How many expired instances a renewal that does not recompute drops at most: the script's {@code LIMIT}. */
    static final int DROPS_PER_RENEWAL = 8;

    private static final Comparator<Entry> BY_DEMAND = Comparator.<Entry>comparingInt(entry -> entry.demand)
            .thenComparing(entry -> entry.id);
    /** The sorted set's order: by score (the expiry), then by member (the id). */
    private static final Comparator<Entry> BY_EXPIRY = Comparator.<Entry>comparingLong(entry -> entry.expiry)
            .thenComparing(entry -> entry.id);

    /** One instance's fields: {@code b:}, {@code d:}, {@code x:} and {@code e:} in the hash. */
    private static final class Entry {
        final String id;
        int block;
        int demand;
        int executing;
        long expiry;

        Entry(String id) {
            this.id = id;
        }
    }

    private final Map<String, Entry> byId = new HashMap<>();
    /** The sorted set {@code bulwark:{name}:leased:expiries}: every entry, by expiry. */
    private final TreeSet<Entry> byExpiry = new TreeSet<>(BY_EXPIRY);
    private Integer limit;
    /** The hash's {@code live}: the entries held (expired ones included until dropped). */
    private long live;
    /** The hash's {@code blocks}: the sum of the entries' blocks. */
    private long blocks;
    /** The hash's {@code level-at}: when the division was last computed, or null to compute it at the next renewal. */
    private Long levelAt;
    private FairShares.Level level;
    /** The edge's demand and id ({@code edge-demand}, {@code edge-id}); {@code edgeId} null when there is none. */
    private int edgeDemand;
    private String edgeId;
    private long divisions;

    /** Sets the fleet's limit, as {@link LeaseScripts#SET_LIMIT} does: the next renewal divides it anew. */
    void setLimit(int limit) {
        this.limit = limit;
        this.levelAt = null;
    }

    /**
     * Renews (or, with {@code leaving}, ends) an instance's lease, exactly as {@link LeaseScripts#RENEW} does.
     *
     * @param now the time, in milliseconds (the script's {@code TIME})
     * @return {@code {grant, limit, live instances, sum of records, contended}}: {@code contended} is 1 when the
     *     division cut some demand (a level, no headroom), 0 when it met every demand; a leaving instance's reply
     *     has the first four only
     */
    long[] renew(String id, int demand, int holding, long ttlMillis, long periodMillis, int initialLimit,
                 boolean leaving, int executing, long now) {
        if (limit == null) {
            limit = initialLimit;
        }
        boolean divide = !leaving && (levelAt == null || now - levelAt >= periodMillis || now < levelAt);
        // A division drops every expired record (the script's full scan); another renewal at most a few (its
        // ZRANGEBYSCORE ... LIMIT 0 DROPS_PER_RENEWAL).
        dropExpired(id, now, divide ? Integer.MAX_VALUE : DROPS_PER_RENEWAL);
        Entry mine = byId.get(id);
        if (mine != null) {
            remove(mine);
        }
        long others = blocks;
        if (leaving) {
            return new long[] {0, limit, 0, others};
        }
        if (divide) {
            divide(id, demand, now);
        }
        boolean pastEdge = edgeId != null
                && (demand > edgeDemand || demand == edgeDemand && id.compareTo(edgeId) >= 0);
        int target = FairShares.target(level, demand, pastEdge);
        int grant = FairShares.grant(target, limit, (int) Math.min(Integer.MAX_VALUE, others));
        int record = FairShares.record(grant, holding);
        add(id, record, demand, executing, now + ttlMillis);
        return new long[] {grant, limit, live, blocks, level.level() >= 0 ? 1 : 0};
    }

    /**
     * Writes an instance's fields, its place in the expiry set and the running sums as the script keeps them (for
     * tests that set up the same state in Redis and here).
     */
    void put(String id, int block, int demand, int executing, long expiry) {
        Entry old = byId.get(id);
        if (old != null) {
            remove(old);
        }
        add(id, block, demand, executing, expiry);
    }

    /** The sum of the recorded blocks, expired ones included until a renewal drops them: the hash's {@code blocks}. */
    long recordedSum() {
        return blocks;
    }

    /** The instances with a record, expired ones included until a renewal drops them: the hash's {@code live}. */
    long live() {
        return live;
    }

    /** The sum of the blocks and the count of records, recomputed from the records (the running sums' check). */
    long[] recount() {
        long sum = 0;
        for (Entry entry : byId.values()) {
            sum += entry.block;
        }
        return new long[] {byId.size(), sum};
    }

    /** How many renewals recomputed the division. */
    long divisions() {
        return divisions;
    }

    /** An instance's recorded block, or -1 when it has no record. */
    int block(String id) {
        Entry entry = byId.get(id);
        return entry == null ? -1 : entry.block;
    }

    /** The instances with a record, expired ones included until a renewal drops them. */
    int records() {
        return byId.size();
    }

    /** The division from every live record and the renewing instance's demand: the script's full pass. */
    private void divide(String renewing, int demand, long now) {
        List<Entry> sorted = new ArrayList<>(byId.values());
        Entry mine = new Entry(renewing);
        mine.demand = demand;
        sorted.add(mine);
        sorted.sort(BY_DEMAND);
        int[] demands = new int[sorted.size()];
        for (int i = 0; i < demands.length; i++) {
            demands[i] = sorted.get(i).demand;
        }
        level = FairShares.level(limit, demands, demands.length);
        if (level.edge() < demands.length) {
            edgeDemand = demands[level.edge()];
            edgeId = sorted.get(level.edge()).id;
        } else {
            edgeId = null;
        }
        levelAt = now;
        divisions++;
    }

    /** Drops the expired records among the first {@code atMost} by expiry, the renewing instance's skipped. */
    private void dropExpired(String renewing, long now, int atMost) {
        List<Entry> expired = new ArrayList<>();
        Iterator<Entry> due = byExpiry.iterator();
        for (int seen = 0; seen < atMost && due.hasNext(); seen++) {
            Entry entry = due.next();
            if (entry.expiry > now) {
                break;
            }
            if (!entry.id.equals(renewing)) {
                expired.add(entry);
            }
        }
        expired.forEach(this::remove);
    }

    private void add(String id, int block, int demand, int executing, long expiry) {
        Entry entry = new Entry(id);
        entry.block = block;
        entry.demand = demand;
        entry.executing = executing;
        entry.expiry = expiry;
        byId.put(id, entry);
        byExpiry.add(entry);
        live++;
        blocks += block;
    }

    private void remove(Entry entry) {
        byId.remove(entry.id);
        byExpiry.remove(entry);
        live--;
        blocks -= entry.block;
    }
}
