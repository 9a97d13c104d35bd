package dev.bulwark.spring.spring7;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.springframework.context.ConfigurableApplicationContext;

/** {@link ResilientApp} on a random port, with a real HTTP client. */
final class RunningResilientApp implements AutoCloseable {
    private final ConfigurableApplicationContext context;
    private final int port;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    private RunningResilientApp(ConfigurableApplicationContext context) {
        this.context = context;
        this.port = Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
    }

    static RunningResilientApp start(String... properties) {
        return new RunningResilientApp(SideBySide.launch(ResilientApp.class, ResilientApp.BASE, properties));
    }

    ConfigurableApplicationContext context() {
        return context;
    }

    Holds holds() {
        return context.getBean(Holds.class);
    }

    CompletableFuture<HttpResponse<String>> get(String path) {
        return client.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    /** What a caller sees: the status and the body. */
    String seen(String path) {
        return seen(get(path).join());
    }

    static String seen(HttpResponse<String> response) {
        return response.statusCode() + " " + response.body();
    }

    /**
     * How many callers of the endpoint method {@code endpoint} are parked before reaching the service method's body:
     * waiting in the throttle, whoever's it is.
     */
    static long waitingIn(String endpoint) {
        long waiting = 0;
        for (Map.Entry<Thread, StackTraceElement[]> thread : Thread.getAllStackTraces().entrySet()) {
            Thread.State state = thread.getKey().getState();
            if (state != Thread.State.WAITING && state != Thread.State.TIMED_WAITING) {
                continue;
            }
            boolean inEndpoint = false;
            boolean inBody = false;
            for (StackTraceElement frame : thread.getValue()) {
                inEndpoint |= frame.getClassName().equals(ResilientApp.Endpoints.class.getName())
                        && frame.getMethodName().equals(endpoint);
                inBody |= frame.getClassName().equals(Holds.class.getName());
            }
            if (inEndpoint && !inBody) {
                waiting++;
            }
        }
        return waiting;
    }

    @Override
    public void close() {
        holds().releaseAll();
        context.close();
    }
}
