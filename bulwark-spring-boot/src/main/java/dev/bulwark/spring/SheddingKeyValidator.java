package dev.bulwark.spring;

/**
 * The application's own check of the partition keys of {@code bulwark.shedding} routes, for what
 * {@code key.max-length} and {@code key.pattern} cannot say: a tenant list that changes at run time, a signature in
 * the key. Declare one bean of this type; every keyed route asks it about each key that passed the route's length
 * and pattern (never about the route's default key), before a partition is made. A key it refuses, or that makes it
 * throw, is answered {@code 400} with {@code "reason":"INVALID_KEY"}, as a key the properties refuse.
 *
 * <p>Called on the request's thread for every request of a keyed route (a Netty event loop in WebFlux): it must be
 * quick, must not block, and must be thread-safe.
 */
@FunctionalInterface
public interface SheddingKeyValidator {

    /**
     * Says whether a route accepts a key.
     *
     * @param bulkhead the name of the route's bulkhead ({@code bulwark.shedding.routes[n].bulkhead})
     * @param key the request's key, at most {@code key.max-length} characters and matching {@code key.pattern}
     * @return {@code true} to admit the request through the key's partition, {@code false} to refuse it with 400
     */
    boolean accepts(String bulkhead, String key);
}
