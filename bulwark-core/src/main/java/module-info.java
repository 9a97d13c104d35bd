/**
 * Bulwark: fault-tolerant calls whose heart is an exact bulkhead.
 *
 * <p>Only {@code dev.bulwark} is exported; everything under {@code dev.bulwark.internal} is implementation
 * and may change without notice.
 */
module dev.bulwark {
    exports dev.bulwark;
    // The bulkhead's own statistics (striped counters, sampled timers), read by the Micrometer binding at scrape.
    exports dev.bulwark.internal.stats to dev.bulwark.micrometer;

    // Flight Recorder events (part of every standard JDK) let operators record rejections and waits without code.
    requires jdk.jfr;

    // JSpecify's nullness annotations (@NullMarked, @Nullable) serve compilers and Kotlin; absent at run time, they
    // are simply not there.
    requires static org.jspecify;
}
