package dev.bulwark.benchmarks.subjects;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.PartitionedBulkhead;
import dev.bulwark.Permit;
import java.util.concurrent.CompletableFuture;

/**
 * Calls spread over keys, for the per-key scenario: each benchmark thread uses its own key. Three shapes answer
 * "do calls on different keys contend?": one bulkhead shared by every key (they do), one independent bulkhead per
 * key (they cannot: the ideal), and a {@link PartitionedBulkhead} (what it costs and whether it contends).
 *
 * <p>As a plain {@link Subject} (for the conformance checks) it uses key 0. The shared shape is named
 * {@value Subjects#BULWARK}: it is Bulwark's plain bulkhead.
 */
public final class KeyedSubject implements Subject {

    /** The number of keys, one per benchmark thread. */
    public static final int KEYS = 2;

    private final String name;
    private final Bulkhead shared;
    private final Bulkhead[] independent;
    private final PartitionedBulkhead<Integer> partitioned;

    KeyedSubject(String name, SubjectSpec spec) {
        this.name = name;
        switch (name) {
            case Subjects.BULWARK:
                shared = bulkhead(name, spec);
                independent = null;
                partitioned = null;
                break;
            case Subjects.BULWARK_INDEPENDENT:
                shared = null;
                independent = new Bulkhead[KEYS];
                for (int key = 0; key < KEYS; key++) {
                    independent[key] = bulkhead(name + "-" + key, spec);
                }
                partitioned = null;
                break;
            default:
                shared = null;
                independent = null;
                PartitionedBulkhead.Builder<Integer> builder = PartitionedBulkhead.<Integer>builder().name(name)
                        .defaultConfig(config(name, spec));
                if (!name.equals(Subjects.BULWARK_PARTITIONED)) {
                    // Room for every key's whole limit: the global limit is never what refuses, so the rows show
                    // the cost of the global slot (and of fair-share admission) on the common path.
                    builder.globalLimit(bulkhead(name + "-global",
                            new SubjectSpec(KEYS * spec.limit(), spec.queue(), spec.maxWait())));
                    if (name.equals(Subjects.BULWARK_PARTITIONED_FAIR)) {
                        builder.fairShares();
                    }
                }
                partitioned = builder.build();
                break;
        }
    }

    private static dev.bulwark.BulkheadConfig config(String name, SubjectSpec spec) {
        return BulwarkSubject.builder(name, spec).config();
    }

    private static Bulkhead bulkhead(String name, SubjectSpec spec) {
        return Bulkhead.of(config(name, spec));
    }

    /**
     * Makes the keyed form of a subject.
     *
     * @param name {@value Subjects#BULWARK} (one shared bulkhead), {@value Subjects#BULWARK_INDEPENDENT} or
     *     {@value Subjects#BULWARK_PARTITIONED}
     * @param spec how to configure each bulkhead
     * @return the keyed subject
     */
    public static KeyedSubject of(String name, SubjectSpec spec) {
        return new KeyedSubject(name, spec);
    }

    /**
     * Runs {@code work} under the bulkhead of {@code key}.
     *
     * @param key the key, in [0, {@link #KEYS})
     * @param work the operation
     * @return the result, or the refusal
     */
    public Object call(int key, Work work) {
        try {
            if (partitioned != null) {
                return partitioned.call(key, work);
            }
            return (independent != null ? independent[key] : shared).call(work);
        } catch (BulkheadRejectedException refused) {
            return refused;
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Object call(Work work) {
        return call(0, work);
    }

    @Override
    public CompletableFuture<Object> callAsync(AsyncWork work) {
        if (partitioned != null) {
            return partitioned.callAsync(0, work);
        }
        return (independent != null ? independent[0] : shared).callAsync(work);
    }

    @Override
    public Slot occupy() {
        Bulkhead bulkhead = partitioned != null ? partitioned.partition(0).orElseGet(() -> {
            partitioned.call(0, () -> null);
            return partitioned.partition(0).orElseThrow();
        }) : independent != null ? independent[0] : shared;
        Permit permit = bulkhead.tryAcquire()
                .orElseThrow(() -> new IllegalStateException(name + ": no free slot to occupy"));
        return permit::close;
    }

    @Override
    public boolean isRefusal(Object result) {
        return result instanceof BulkheadRejectedException;
    }

    @Override
    public boolean isRefusal(Throwable failure) {
        return failure instanceof BulkheadRejectedException;
    }
}
