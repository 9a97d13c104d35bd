package dev.bulwark.spring.internal;

import java.util.Objects;
import java.util.function.Supplier;

/**
 * The routes, looked up on first use. The filters are made early (a servlet container asks for its filters while
 * the web server is created), before the application's own beans; the routes are a bean of their own, made and
 * checked with the other singletons, so a bulkhead registered by an application bean is found and a bad route still
 * fails the startup. Thread-safe: racing first uses get the same singleton, so a plain volatile cache suffices.
 */
final class LazyRoutes implements Supplier<SheddingRoutes> {
    private final Supplier<SheddingRoutes> lookup;
    private volatile SheddingRoutes routes;

    LazyRoutes(Supplier<SheddingRoutes> lookup) {
        this.lookup = Objects.requireNonNull(lookup, "lookup");
    }

    @Override
    public SheddingRoutes get() {
        SheddingRoutes known = routes;
        if (known == null) {
            known = Objects.requireNonNull(lookup.get(), "routes");
            routes = known;
        }
        return known;
    }
}
