package dev.bulwark.spring.shedding;

import dev.bulwark.Bulkhead;
import dev.bulwark.Bulkheads;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;

/** The test application running on a random port, with a real HTTP client talking to it. */
final class RunningApp implements AutoCloseable {
    private final ConfigurableApplicationContext context;
    private final int port;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private final List<Socket> sockets = new ArrayList<>();

    RunningApp(ConfigurableApplicationContext context) {
        this.context = context;
        this.port = Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
    }

    static RunningApp servlet(String... properties) {
        return new RunningApp(builder(WebApplicationType.SERVLET, properties).run());
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    static RunningApp reactive(String... properties) {
        // Tomcat is on the class path too (for the servlet tests): a reactive application would pick it first, so
        // the Reactor Netty server factory is declared. Its class moved between Boot 3 and Boot 4.
        Class nettyFactory = nettyServerFactory();
        return new RunningApp(builder(WebApplicationType.REACTIVE, properties)
                .initializers(context -> ((GenericApplicationContext) context).registerBean("nettyServerFactory",
                        nettyFactory))
                .run());
    }

    static Class<?> nettyServerFactory() {
        for (String name : List.of("org.springframework.boot.reactor.netty.NettyReactiveWebServerFactory",
                "org.springframework.boot.web.embedded.netty.NettyReactiveWebServerFactory")) {
            try {
                return Class.forName(name);
            } catch (ClassNotFoundException absent) {
                // the other Boot line
            }
        }
        throw new IllegalStateException("no NettyReactiveWebServerFactory on the class path");
    }

    private static SpringApplicationBuilder builder(WebApplicationType type, String... properties) {
        List<String> all = new ArrayList<>(SheddingTestApp.BASE);
        all.addAll(List.of(properties));
        return new SpringApplicationBuilder(SheddingTestApp.class).web(type).properties(all.toArray(String[]::new));
    }

    Gate gate() {
        return context.getBean(Gate.class);
    }

    Bulkhead bulkhead(String name) {
        return context.getBean(Bulkheads.class).find(name).orElseThrow();
    }

    <T> T bean(Class<T> type) {
        return context.getBean(type);
    }

    CompletableFuture<HttpResponse<String>> get(String path, String... headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30)).GET();
        if (headers.length > 0) {
            request.headers(headers);
        }
        return client.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Sends a request on a raw socket, which the test can close to play a client that goes away. */
    Socket openRaw(String path) throws IOException {
        Socket socket = new Socket("127.0.0.1", port);
        sockets.add(socket);
        OutputStream out = socket.getOutputStream();
        out.write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return socket;
    }

    @Override
    public void close() {
        gate().releaseAll();
        for (Socket socket : sockets) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // already gone
            }
        }
        context.close();
    }
}
