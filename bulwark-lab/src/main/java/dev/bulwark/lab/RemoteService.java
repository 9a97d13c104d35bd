package dev.bulwark.lab;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The service's second dependency: a real HTTP server on loopback (the JDK's {@code HttpServer}) whose capacity is
 * its fixed pool of {@link #WORKERS} worker threads, as a small downstream service's is. Each request does real work
 * on a worker, a SHA-256 digest of {@link #DIGESTED_BYTES} bytes, then waits {@link #WAIT} for what such a service
 * waits on itself (its own store), and answers 200 with the digest's first bytes in hex. Requests beyond the
 * workers queue in the pool's unbounded queue and are served in turn, even after their client gave up: the way a
 * thread-pool server collapses under overload.
 *
 * <p>Thread-safe. Close it to stop the server and its workers.
 */
final class RemoteService implements AutoCloseable {

    /** The worker threads: at most this many requests are served at once. */
    static final int WORKERS = 4;
    /** The bytes each request digests: its real work on the CPU. */
    static final int DIGESTED_BYTES = 256 * 1024;
    /** What each request waits for after its work, on its worker. */
    static final Duration WAIT = Duration.ofMillis(20);

    private final HttpServer server;
    private final ExecutorService workers;
    private final AtomicInteger serving = new AtomicInteger();
    private final AtomicInteger peakServing = new AtomicInteger();
    private final byte[] payload = new byte[DIGESTED_BYTES];

    private RemoteService(HttpServer server, ExecutorService workers) {
        this.server = server;
        this.workers = workers;
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) (i * 31);
        }
    }

    /**
     * Starts the server on a free loopback port.
     *
     * @return the running server
     * @throws IOException when it cannot bind
     */
    static RemoteService start() throws IOException {
        // The JDK's server leaves Nagle's algorithm on unless told otherwise (a JVM-wide setting, read when its first
        // server starts). With it, a response's headers and body go out as two segments and the second waits for
        // the client's delayed acknowledgement: a call took 71 ms at the median instead of 25 on loopback.
        System.setProperty("sun.net.httpserver.nodelay", "true");
        // A backlog well above the lab's surge, so that connections queue in the server and never fail to connect.
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
        AtomicInteger threads = new AtomicInteger();
        ExecutorService workers = Executors.newFixedThreadPool(WORKERS, task -> {
            Thread thread = new Thread(task, "lab-remote-worker-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        RemoteService service = new RemoteService(server, workers);
        server.createContext("/serve", service::serve);
        server.setExecutor(workers);
        server.start();
        return service;
    }

    /**
     * Returns the address of its one route.
     *
     * @return {@code http://127.0.0.1:<port>/serve}
     */
    URI uri() {
        return URI.create("http://" + server.getAddress().getAddress().getHostAddress() + ":"
                + server.getAddress().getPort() + "/serve");
    }

    /**
     * Returns the most requests served at once so far (never above {@link #WORKERS}).
     *
     * @return a high-water mark
     */
    int peakServing() {
        return peakServing.get();
    }

    private void serve(HttpExchange exchange) throws IOException {
        int now = serving.incrementAndGet();
        peakServing.accumulateAndGet(now, Math::max);
        try {
            try (InputStream body = exchange.getRequestBody()) {
                body.readAllBytes();
            }
            byte[] digest = digest();
            LockSupport.parkNanos(WAIT.toNanos());
            byte[] answer = HexFormat.of().formatHex(digest, 0, 8).getBytes(StandardCharsets.US_ASCII);
            exchange.sendResponseHeaders(200, answer.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(answer);
            }
        } finally {
            exchange.close();
            serving.decrementAndGet();
        }
    }

    private byte[] digest() {
        try {
            return MessageDigest.getInstance("SHA-256").digest(payload);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** Stops accepting, then stops the workers (a request still queued is dropped with its connection). */
    @Override
    public void close() throws InterruptedException {
        server.stop(0);
        workers.shutdownNow();
        workers.awaitTermination(5, TimeUnit.SECONDS);
    }
}
