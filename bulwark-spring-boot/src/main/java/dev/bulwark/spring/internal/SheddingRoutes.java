package dev.bulwark.spring.internal;

import java.util.List;
import java.util.Map;
import org.springframework.http.server.PathContainer;

/**
 * The application's shedding routes in declared order; a request goes through the first that matches it.
 *
 * <p>Immutable and thread-safe.
 *
 * @param routes the routes, first match wins
 * @param order the filters' order
 */
public record SheddingRoutes(List<SheddingRoute> routes, int order) {

    /** Copies the list. */
    public SheddingRoutes {
        routes = List.copyOf(routes);
    }

    /**
     * Finds the route of a request.
     *
     * @param method the request's method
     * @param path the path within the application
     * @return the route and the pattern's variables, or {@code null} when no route takes the request
     */
    Match match(String method, PathContainer path) {
        for (SheddingRoute route : routes) {
            Map<String, String> variables = route.match(method, path);
            if (variables != null) {
                return new Match(route, variables);
            }
        }
        return null;
    }

    /**
     * A request's route.
     *
     * @param route the route
     * @param variables the pattern's variables
     */
    record Match(SheddingRoute route, Map<String, String> variables) {
    }
}
