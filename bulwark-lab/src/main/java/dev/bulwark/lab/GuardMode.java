package dev.bulwark.lab;

/**
 * What protects the loaded dependency's path (the database's, or the remote's) in one run of an experiment.
 */
enum GuardMode {
    /** Nothing but HikariCP's own pool and its connection timeout. */
    NONE("none"),
    /**
     * A Bulwark bulkhead with a fixed limit, sized by the simulator from the measured probe ({@link SimulatorSizing};
     * by Little's law with {@code --fixed-by little}).
     */
    FIXED("fixed"),
    /** A Bulwark bulkhead whose limit is {@code AdaptiveLimit.selfTuning()}, starting at the pool's size. */
    SELF_TUNING("selfTuning"),
    /** Resilience4j's semaphore bulkhead with the fixed limit and the same maximum wait. */
    RESILIENCE4J("resilience4j"),
    /**
     * Spring Framework 7's {@code @ConcurrencyLimit} with the fixed limit and its default policy, {@code BLOCK}: a
     * call beyond the limit waits for a slot without bound (there is no maximum wait to configure).
     */
    SPRING_BLOCK("springBlock"),
    /**
     * Spring Framework 7's {@code @ConcurrencyLimit} with the fixed limit and {@code policy = REJECT}: a call beyond
     * the limit is refused at once (there is no maximum wait to configure).
     */
    SPRING_REJECT("springReject");

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
