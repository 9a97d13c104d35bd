package dev.bulwark.lab;

import jakarta.servlet.http.HttpServletRequest;
import java.sql.SQLTransientConnectionException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The service's routes: {@code GET /work}, and the shedding experiment's {@code /critical} and {@code /sheddable}
 * under each {@link EdgeMode}'s prefix, all the same database work through the current guard; and
 * {@code GET /remote}, a call to the second HTTP service ({@link RemoteWork}) through the same guard. Answers 200 with
 * the result; 503 with header {@code X-Lab-Outcome: refused} when the guard refused, {@code pool-timeout} when
 * HikariCP had no connection within its timeout; 500 on any other failure. A request the shedding filter refuses
 * never gets here: the filter answers it with a problem body ({@code application/problem+json}), status 503, or 429
 * under the {@code /keep} prefix ({@link EdgeMode#PRIORITIES_429}).
 *
 * <p>Thread-safe (Tomcat's worker threads call it concurrently).
 */
@RestController
class WorkController {

    /** The header that tells the load generator why a request failed. */
    static final String OUTCOME_HEADER = "X-Lab-Outcome";

    private final DatabaseWork work;
    private final RemoteWork remote;
    private final DependencyGuard guard;
    private final Map<String, LongAdder> poolTimeoutsByPath = new ConcurrentHashMap<>();
    private final AtomicInteger inFlight = new AtomicInteger();

    WorkController(DatabaseWork work, RemoteWork remote, DependencyGuard guard) {
        this.work = work;
        this.remote = remote;
        this.guard = guard;
    }

    @GetMapping({"/work", "/open/critical", "/open/sheddable", "/flat/critical", "/flat/sheddable", "/edge/critical",
        "/edge/sheddable", "/keep/critical", "/keep/sheddable"})
    ResponseEntity<String> work(HttpServletRequest request) {
        return serve(work, request);
    }

    @GetMapping("/remote")
    ResponseEntity<String> remote(HttpServletRequest request) {
        return serve(remote, request);
    }

    private ResponseEntity<String> serve(DependencyWork dependency, HttpServletRequest request) {
        inFlight.incrementAndGet();
        try {
            return ResponseEntity.ok(Long.toString(guard.call(dependency)));
        } catch (DependencyGuard.Refused e) {
            return failure(HttpStatus.SERVICE_UNAVAILABLE, "refused");
        } catch (SQLTransientConnectionException e) {
            poolTimeoutsByPath.computeIfAbsent(request.getRequestURI(), path -> new LongAdder()).increment();
            return failure(HttpStatus.SERVICE_UNAVAILABLE, "pool-timeout");
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return failure(HttpStatus.INTERNAL_SERVER_ERROR, "error");
        } finally {
            inFlight.decrementAndGet();
        }
    }

    private static ResponseEntity<String> failure(HttpStatus status, String outcome) {
        return ResponseEntity.status(status).header(OUTCOME_HEADER, outcome).body(outcome);
    }

    /**
     * Returns how many requests HikariCP's connection timeout failed so far.
     *
     * @return a running count
     */
    long poolTimeouts() {
        return poolTimeoutsByPath.values().stream().mapToLong(LongAdder::sum).sum();
    }

    /**
     * Returns how many requests to one path HikariCP's connection timeout failed so far.
     *
     * @param path a route's path, {@code /edge/critical} say
     * @return a running count
     */
    long poolTimeouts(String path) {
        LongAdder count = poolTimeoutsByPath.get(path);
        return count == null ? 0 : count.sum();
    }

    /**
     * Returns how many requests the route is serving now (including those waiting for a slot or a connection).
     *
     * @return requests in the route now
     */
    int inFlight() {
        return inFlight.get();
    }
}
