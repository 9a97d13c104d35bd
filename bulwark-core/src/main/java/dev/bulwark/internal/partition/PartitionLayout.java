package dev.bulwark.internal.partition;

import dev.bulwark.internal.bulkhead.InProcessBulkhead;

/**
 * The memory layout of a {@link Partition}: padding, then the fields every call writes, then (in {@link Partition}
 * itself) padding again, so that two keys' partitions never share a cache line. Superclass fields are laid out
 * before subclass fields, which is what makes a class chain the way to order them. See {@link Partition}'s notes.
 */
final class PartitionLayout {

    private PartitionLayout() {
    }

    /** Padding before the hot fields. The int fills the gap after the object header. */
    @SuppressWarnings("unused")
    abstract static class PaddingBefore {
        int p00;
        long p01, p02, p03, p04, p05, p06, p07, p08;
    }

    /** The fields every call writes; see {@link Partition}. */
    abstract static class HotFields extends PaddingBefore {
        final InProcessBulkhead bulkhead;
        /** Users and use stamp; see {@link Partition}. Changed only through {@code Partition.STATE}. */
        volatile long state;
        /** Ticker reading when the last call left; written before the leave's atomic add. */
        volatile long lastUsed;
        /**
         * Global slots this key's calls hold through fair shares ({@code FairShares}); written by every fair-share
         * call, so it lives with the other hot fields. Changed only through {@code Partition.HELD}.
         */
        volatile int held;

        HotFields(InProcessBulkhead bulkhead, long state) {
            this.bulkhead = bulkhead;
            this.state = state;
        }
    }
}
