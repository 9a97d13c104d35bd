package dev.bulwark.lab;

/**
 * What protects the service's database path in one run of an experiment.
 */
enum GuardMode {
    /** Nothing but HikariCP's own pool and its connection timeout. */
    NONE("none"),
    /** A Bulwark bulkhead with a fixed limit, sized by Little's law from the measured capacity and service time. */
    FIXED("fixed"),
    /** A Bulwark bulkhead whose limit is {@code AdaptiveLimit.selfTuning()}, starting at the pool's size. */
    SELF_TUNING("selfTuning"),
    /** Resilience4j's semaphore bulkhead with the fixed limit and the same maximum wait. */
    RESILIENCE4J("resilience4j");

    private final String label;

    GuardMode(String label) {
        this.label = label;
    }

    /**
     * Returns the name the reports use.
     *
     * @return a short label
     */
    String label() {
        return label;
    }
}
