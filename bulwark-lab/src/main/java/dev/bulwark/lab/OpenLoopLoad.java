package dev.bulwark.lab;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * An open-loop load generator: requests arrive by a Poisson process whose rate follows a schedule of
 * {@link Stage}s, whatever the service answers. Each arrival is sent without waiting for earlier answers (the
 * JDK's {@link HttpClient}, asynchronously), and its latency is measured from the moment it was due, so neither a
 * slow service nor a late generator can hide queueing (no coordinated omission, unlike a closed loop such as
 * {@code wrk}).
 *
 * <p>Arrival times come from a seeded generator: the same seed gives the same arrival times. Not thread-safe: one
 * {@link #run} at a time.
 */
final class OpenLoopLoad {

    private final HttpClient client;
    private final Duration clientTimeout;

    /**
     * Creates a generator.
     *
     * @param clientTimeout how long a request waits for its answer before the client gives up on it
     */
    OpenLoopLoad(Duration clientTimeout) {
        this.clientTimeout = clientTimeout;
        this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(clientTimeout).build();
    }

    /**
     * Runs the schedule against {@code target} and returns every request's sample, once every request has ended.
     *
     * @param target the URI to GET
     * @param stages the schedule, in order
     * @param seed the seed of the arrival times
     * @return one sample per request, in no particular order
     * @throws InterruptedException when interrupted
     */
    List<Sample> run(URI target, List<Stage> stages, long seed) throws InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(target).timeout(clientTimeout).GET().build();
        SplittableRandom random = new SplittableRandom(seed);
        ConcurrentLinkedQueue<Sample> samples = new ConcurrentLinkedQueue<>();
        List<CompletableFuture<Void>> pending = new ArrayList<>();
        long start = System.nanoTime();
        long stageStart = 0;
        for (Stage stage : stages) {
            long stageLength = stage.length().toNanos();
            double t = 0;
            while (true) {
                double rate = stage.fromRate() + (stage.toRate() - stage.fromRate()) * t / stageLength;
                // The next arrival of a Poisson process at the current rate (rates change slowly against gaps).
                t += -Math.log(1 - random.nextDouble()) / Math.max(rate, 0.1) * 1e9;
                if (t >= stageLength) {
                    break;
                }
                long due = stageStart + (long) t;
                long wait;
                while ((wait = start + due - System.nanoTime()) > 0) {
                    LockSupport.parkNanos(wait);
                    if (Thread.interrupted()) {
                        throw new InterruptedException();
                    }
                }
                pending.add(send(request, start, due, samples));
            }
            stageStart += stageLength;
        }
        for (CompletableFuture<Void> f : pending) {
            try {
                f.get(clientTimeout.toMillis() + 5_000, TimeUnit.MILLISECONDS);
            } catch (ExecutionException | TimeoutException e) {
                // Recorded by send's handler; a future that outlives the timeout has been counted as a timeout.
            }
        }
        return new ArrayList<>(samples);
    }

    private CompletableFuture<Void> send(HttpRequest request, long start, long due,
            ConcurrentLinkedQueue<Sample> samples) {
        long lag = System.nanoTime() - start - due;
        return client.sendAsync(request, HttpResponse.BodyHandlers.discarding()).handle((response, failure) -> {
            long latency = System.nanoTime() - start - due;
            samples.add(new Sample(due, latency, classify(response, failure), lag));
            return null;
        });
    }

    private static Outcome classify(HttpResponse<Void> response, Throwable failure) {
        if (failure != null) {
            Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
            return cause instanceof HttpTimeoutException ? Outcome.CLIENT_TIMEOUT
                    : cause instanceof IOException && cause.getMessage() != null
                            && cause.getMessage().contains("timed out") ? Outcome.CLIENT_TIMEOUT : Outcome.ERROR;
        }
        if (response.statusCode() == 200) {
            return Outcome.OK;
        }
        if (response.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json")) {
            // Refused at the service's edge by Bulwark's shedding filter (an RFC 9457 body with 503, or 429).
            return Outcome.REFUSED;
        }
        String outcome = response.headers().firstValue(WorkController.OUTCOME_HEADER).orElse("");
        return switch (outcome) {
            case "refused" -> Outcome.REFUSED;
            case "pool-timeout" -> Outcome.POOL_TIMEOUT;
            default -> Outcome.ERROR;
        };
    }
}
