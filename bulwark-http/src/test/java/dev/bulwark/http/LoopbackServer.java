package dev.bulwark.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real HTTP server on loopback (the JDK's {@code com.sun.net.httpserver}): {@code /hold} answers when the test
 * releases it, {@code /ok} at once, {@code /drop} breaks its first response off mid-body and
 * answers afterwards, {@code /stream} sends headers and then body chunks until the client goes away.
 */
final class LoopbackServer implements AutoCloseable {

    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool();
    /** Requests {@code /hold} is holding, in arrival order. */
    final BlockingQueue<CountDownLatch> held = new LinkedBlockingQueue<>();
    /** Every request path and query the server received. */
    final List<String> received = new CopyOnWriteArrayList<>();
    final AtomicInteger dropAttempts = new AtomicInteger();
    /** Completes when a {@code /stream} response could no longer be written: the client aborted the exchange. */
    final CompletableFuture<IOException> streamAborted = new CompletableFuture<>();
    final CountDownLatch streamStarted = new CountDownLatch(1);

    LoopbackServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(executor);
        server.createContext("/hold", exchange -> {
            record(exchange);
            CountDownLatch release = new CountDownLatch(1);
            held.add(release);
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            respond(exchange, "held " + exchange.getRequestURI().getQuery());
        });
        server.createContext("/ok", exchange -> {
            record(exchange);
            respond(exchange, "ok " + exchange.getRequestURI().getQuery());
        });
        server.createContext("/drop", exchange -> {
            record(exchange);
            if (dropAttempts.incrementAndGet() == 1) {
                // Promise 100 bytes, send 5, hang up: the client's body read fails with an IOException (a
                // connection closed before any response would be retried by the JDK client itself).
                exchange.sendResponseHeaders(200, 100);
                exchange.getResponseBody().write("short".getBytes(StandardCharsets.UTF_8));
                exchange.getResponseBody().flush();
                exchange.close();
            } else {
                respond(exchange, "second attempt");
            }
        });
        server.createContext("/stream", exchange -> {
            record(exchange);
            exchange.sendResponseHeaders(200, 0);
            byte[] chunk = new byte[8192];
            try (OutputStream body = exchange.getResponseBody()) {
                body.write(chunk);
                body.flush();
                streamStarted.countDown();
                for (long written = 0; written < 1L << 32; written += chunk.length) {
                    body.write(chunk);
                    body.flush();
                }
            } catch (IOException aborted) {
                streamAborted.complete(aborted);
            }
        });
        server.start();
    }

    private void record(HttpExchange exchange) {
        URI uri = exchange.getRequestURI();
        received.add(uri.getPath() + (uri.getQuery() == null ? "" : "?" + uri.getQuery()));
    }

    private static void respond(HttpExchange exchange, String text) throws IOException {
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(200, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    URI uri(String pathAndQuery) {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + pathAndQuery);
    }

    /** Waits for the next held request. */
    CountDownLatch nextHeld() throws InterruptedException {
        CountDownLatch release = held.poll(10, TimeUnit.SECONDS);
        if (release == null) {
            throw new AssertionError("no request reached /hold within 10 s");
        }
        return release;
    }

    @Override
    public void close() {
        held.forEach(CountDownLatch::countDown);
        server.stop(0);
        executor.shutdownNow();
    }
}
