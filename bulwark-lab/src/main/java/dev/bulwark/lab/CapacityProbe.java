package dev.bulwark.lab;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * Measures the service before an experiment, closed-loop: {@code n} clients each send a request as soon as their
 * previous one is answered, for a while, and the probe counts the successful answers per second. With {@code n}
 * equal to the pool's size this is the most the service completes (its capacity); with {@code n = 1}, together
 * with the loaded dependency's timing ({@link DependencyWork}), it gives its time of a call without contention.
 *
 * <p>A closed loop is right here, unlike for the overload itself: it measures throughput at a known concurrency,
 * not latency under an arrival rate.
 */
final class CapacityProbe {

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    /**
     * Runs {@code clients} closed-loop clients for {@code length}.
     *
     * @param target the URI to GET
     * @param clients how many requests in flight
     * @param length how long
     * @return successful answers per second
     * @throws InterruptedException when interrupted
     */
    double throughput(URI target, int clients, Duration length) throws InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(target).timeout(Duration.ofSeconds(10)).GET().build();
        LongAdder ok = new LongAdder();
        long end = System.nanoTime() + length.toNanos();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            Thread t = new Thread(() -> {
                while (System.nanoTime() < end) {
                    try {
                        if (client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                            ok.increment();
                        }
                    } catch (IOException e) {
                        // counted as not successful
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            }, "lab-probe-" + i);
            t.start();
            threads.add(t);
        }
        for (Thread t : threads) {
            t.join();
        }
        return ok.sum() / (length.toNanos() / 1e9);
    }
}
