package dev.bulwark.spring.shedding;

import dev.bulwark.testing.FirstUseMeter;
import dev.bulwark.testing.FreshJvm;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.Ordered;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.server.WebFilter;

/**
 * The child program of {@link SheddingFirstCallsTest}: a fresh JVM's first shed requests through the load-shedding
 * filter of a real application ({@code servlet}, Spring MVC on Tomcat, or {@code reactive}, WebFlux on Reactor
 * Netty; the first argument). One request is admitted and held first, so that the server's and the framework's own
 * first-request costs are paid before anything is timed; then shed requests follow against the full route (limit
 * 1, queue 0), each measured with {@link FirstUseMeter} as {@code cold} (the first), {@code warm} and
 * {@code warm2}:
 * <ul>
 *   <li>{@code shed}: from the client's send to the 503 it gets;</li>
 *   <li>{@code server}: on the server, from the first filter (ordered before the shedding filter) to the end of
 *       the request's processing there (servlet: the filter chain's return; reactive: the chain's completion).</li>
 * </ul>
 * A line {@code round.unexpected=1} reports a request that was not shed with 503.
 */
public final class SheddingFirstCalls {

    /** The JVM metrics' auto-configuration on Boot 3.5; a name absent from the class path is not excluded. */
    private static final String JVM_METRICS_BOOT_3 =
            "org.springframework.boot.actuate.autoconfigure.metrics.JvmMetricsAutoConfiguration";
    /** The same on Boot 4.0, which moved it to its own module. */
    private static final String JVM_METRICS_BOOT_4 =
            "org.springframework.boot.micrometer.metrics.autoconfigure.jvm.JvmMetricsAutoConfiguration";

    /** Each timed request's server-side time, in microseconds. */
    static final BlockingQueue<Long> SERVER_MICROS = new LinkedBlockingQueue<>();

    private SheddingFirstCalls() {
    }

    /**
     * Runs the rounds.
     *
     * @param args {@code servlet} or {@code reactive}
     * @throws Exception never expected
     */
    public static void main(String[] args) throws Exception {
        FreshJvm.watchdog(Duration.ofSeconds(90));
        boolean servlet = args[0].equals("servlet");
        try (RunningApp app = new RunningApp(start(servlet))) {
            // A request the route does not take: the server's, the framework's and the client's first response.
            app.get("/free").get(30, TimeUnit.SECONDS);
            // The held request: a servlet one blocks its thread in the handler (no async cycle of its own whose
            // first use would overlap the timed requests).
            CompletableFuture<HttpResponse<String>> holder = app.get(servlet ? "/api/sync/1" : "/api/hold/1");
            while (app.gate().entered() < 1) {
                // The held request is on its way to the handler; the first timed request must find it there.
                Thread.onSpinWait();
            }
            FirstUseMeter.awaitBackgroundSetUp();
            for (String round : new String[] {"cold", "warm", "warm2"}) {
                FirstUseMeter.Section section = FirstUseMeter.start();
                if (round.equals("cold")) {
                    // A collection whose notifications are handled during the first shed request, as in a CI run
                    // that failed here: nothing listening to them may count as the server's first use.
                    System.gc();
                }
                HttpResponse<String> shed = app.get("/api/now", "X-Time", "yes").get(30, TimeUnit.SECONDS);
                section.stop(round, "shed");
                Long server = SERVER_MICROS.poll(10, TimeUnit.SECONDS);
                FirstUseMeter.print(round, "server", server == null ? -1 : server);
                if (shed.statusCode() != 503) {
                    FirstUseMeter.print(round, "unexpected", 1);
                }
            }
            app.gate().releaseAll();
            holder.get(30, TimeUnit.SECONDS);
        }
        System.out.flush();
        System.exit(0);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static ConfigurableApplicationContext start(boolean servlet) {
        SpringApplicationBuilder builder = new SpringApplicationBuilder(SheddingTestApp.class)
                .web(servlet ? WebApplicationType.SERVLET : WebApplicationType.REACTIVE)
                .properties(SheddingTestApp.BASE.toArray(String[]::new))
                // The JVM's metrics listen to the collector's notifications: a collection during the timed request
                // would load their classes (and the JDK's management ones) on another thread, in the same count.
                .properties("spring.autoconfigure.exclude=" + JVM_METRICS_BOOT_3 + "," + JVM_METRICS_BOOT_4)
                .properties("bulwark.bulkheads.api.max-concurrency=1", "bulwark.bulkheads.api.max-queue=0",
                        "bulwark.shedding.routes[0].pattern=/api/**", "bulwark.shedding.routes[0].bulkhead=api");
        if (servlet) {
            builder.initializers(context -> ((GenericApplicationContext) context).registerBean("timingFilter",
                    TimingFilter.class));
        } else {
            Class nettyFactory = RunningApp.nettyServerFactory();
            builder.initializers(context -> {
                ((GenericApplicationContext) context).registerBean("nettyServerFactory", nettyFactory);
                ((GenericApplicationContext) context).registerBean("timingWebFilter", WebFilter.class,
                        SheddingFirstCalls::timingWebFilter);
            });
        }
        return builder.run();
    }

    /** Times the requests that ask for it, from before the shedding filter to the chain's return. */
    static final class TimingFilter extends OncePerRequestFilter implements Ordered {
        @Override
        public int getOrder() {
            return -300;
        }

        @Override
        protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
                throws ServletException, IOException {
            if (request.getHeader("X-Time") == null) {
                chain.doFilter(request, response);
                return;
            }
            long started = System.nanoTime();
            try {
                chain.doFilter(request, response);
            } finally {
                SERVER_MICROS.add((System.nanoTime() - started) / 1000);
            }
        }
    }

    private static WebFilter timingWebFilter() {
        return new OrderedTimingWebFilter();
    }

    /** The reactive twin of {@link TimingFilter}: to the completion of the rest of the chain. */
    static final class OrderedTimingWebFilter implements WebFilter, Ordered {
        @Override
        public int getOrder() {
            return -300;
        }

        @Override
        public reactor.core.publisher.Mono<Void> filter(org.springframework.web.server.ServerWebExchange exchange,
                                                       org.springframework.web.server.WebFilterChain chain) {
            // Every request takes the same path, so that the untimed first one links this lambda, not a timed one.
            boolean timed = exchange.getRequest().getHeaders().getFirst("X-Time") != null;
            long started = System.nanoTime();
            return chain.filter(exchange).doFinally(signal -> {
                if (timed) {
                    SERVER_MICROS.add((System.nanoTime() - started) / 1000);
                }
            });
        }
    }
}
