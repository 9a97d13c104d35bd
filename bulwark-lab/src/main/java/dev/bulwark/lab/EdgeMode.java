package dev.bulwark.lab;

/**
 * What guards the service's edge in one run of the shedding experiment ({@link Scenario#SHEDDING}): each mode is a
 * path prefix of the same service, so that every mode runs in the same application and run. Under each prefix,
 * {@code /critical} and {@code /sheddable} do the same database work; only the shedding routes differ.
 */
enum EdgeMode {
    /** No shedding route matches: every request reaches the database path (HikariCP's pool and its timeout only). */
    NONE("none", "/open"),
    /**
     * Bulwark's MVC shedding filter on one bulkhead ({@code flat}), every request at {@code NORMAL} priority: the
     * excess is refused in arrival order, whichever class it belongs to.
     */
    SHED("shed", "/flat"),
    /**
     * The same filter and limit on another bulkhead ({@code edge}), with {@code default-priority} per route:
     * {@code CRITICAL} for {@code /edge/critical}, {@code SHEDDABLE} for {@code /edge/sheddable}. A freed slot goes
     * to a waiting critical request first, and a critical request that finds the queue full evicts a sheddable one.
     */
    PRIORITIES("priorities", "/edge"),
    /**
     * {@link #PRIORITIES} on a third bulkhead ({@code keep}) whose routes answer a refusal with 429 instead of 503:
     * Tomcat closes the connection after every 503 (and 400, 408, 411, 413, 414, 500, 501), so each refusal costs its
     * client a new connection; after a 429 the connection stays open for the next request.
     */
    PRIORITIES_429("priorities429", "/keep");

    private final String label;
    private final String prefix;

    EdgeMode(String label, String prefix) {
        this.label = label;
        this.prefix = prefix;
    }

    /**
     * Returns the name the reports and {@code --guards} use.
     *
     * @return a short label
     */
    String label() {
        return label;
    }

    /**
     * Returns the path prefix of the mode's two routes.
     *
     * @return {@code /open}, {@code /flat}, {@code /edge} or {@code /keep}
     */
    String prefix() {
        return prefix;
    }
}
