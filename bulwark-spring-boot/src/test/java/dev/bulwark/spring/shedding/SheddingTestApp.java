package dev.bulwark.spring.shedding;

import dev.bulwark.spring.SheddingKeyValidator;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.security.Principal;
import java.util.List;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import org.springframework.core.annotation.Order;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.server.WebFilter;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * The web application the load-shedding tests start on a random port, as a servlet (Tomcat) or a reactive (Reactor
 * Netty) application: the same annotated controller serves both.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import({SheddingTestApp.Handlers.class, SheddingTestApp.ServletPrincipal.class,
    SheddingTestApp.ReactivePrincipal.class})
public class SheddingTestApp {

    /**
     * The properties every test starts from; each test adds its routes and bulkheads. Reactor Netty's event loops
     * wait a quiet period of 2 s when a reactive application closes; every test closes one, so none is waited.
     */
    static final List<String> BASE = List.of("server.port=0", "management.endpoints.web.exposure.include=none",
            "spring.main.banner-mode=off", "logging.level.root=WARN",
            "spring.reactor.netty.shutdown-quiet-period=0s");

    @Bean
    Gate gate() {
        return new Gate();
    }

    /** The application's key check of the tests that set {@code test.refused-key-prefix}; "boom" makes it throw. */
    @Bean
    @ConditionalOnProperty("test.refused-key-prefix")
    SheddingKeyValidator keyValidator(Environment environment) {
        String refused = environment.getRequiredProperty("test.refused-key-prefix");
        return (bulkhead, key) -> {
            if (key.equals("boom")) {
                throw new IllegalStateException("a validator that fails");
            }
            return bulkhead.equals("tenant") && !key.startsWith(refused);
        };
    }

    /** Handlers that wait at the gate. */
    @RestController
    static class Handlers {
        private final Gate gate;

        Handlers(Gate gate) {
            this.gate = gate;
        }

        /** Asynchronous in both stacks (in Spring MVC a Mono is an async request). */
        @GetMapping({"/api/hold/{id}", "/tenants/{tenant}/hold/{id}", "/other/hold/{id}"})
        Mono<String> hold(@PathVariable("id") String id) {
            return Mono.defer(() -> Mono.fromFuture(gate.arrive(id)));
        }

        /** Answers with the principal's name once released. */
        @GetMapping("/api/me/{id}")
        Mono<String> me(@PathVariable("id") String id, Principal principal) {
            return Mono.defer(() -> Mono.fromFuture(gate.arrive(id)))
                    .map(ignored -> principal == null ? "nobody" : principal.getName());
        }

        /** Blocks its thread: for the servlet stack only. */
        @GetMapping("/api/sync/{id}")
        String sync(@PathVariable("id") String id) throws InterruptedException {
            return gate.arriveBlocking(id);
        }

        @GetMapping({"/api/now", "/free"})
        String now() {
            return "now";
        }

        /** Answers at once with the name of the thread the application was called on. */
        @GetMapping("/api/thread")
        String thread() {
            return Thread.currentThread().getName();
        }
    }

    /** The "authentication" of the servlet tests: the X-User header becomes the request's principal. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    static class ServletPrincipal {
        @Bean
        OncePerRequestFilter userHeaderPrincipal() {
            return new UserHeaderFilter();
        }

        /** Runs before the shedding filter (order 0). */
        static final class UserHeaderFilter extends OncePerRequestFilter implements Ordered {
            @Override
            public int getOrder() {
                return -200;
            }

            @Override
            protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response,
                                            FilterChain chain) throws ServletException, IOException {
                String user = request.getHeader("X-User");
                if (user == null) {
                    chain.doFilter(request, response);
                    return;
                }
                Principal principal = () -> user;
                chain.doFilter(new HttpServletRequestWrapper(request) {
                    @Override
                    public Principal getUserPrincipal() {
                        return principal;
                    }
                }, response);
            }
        }
    }

    /** The "authentication" of the reactive tests: the X-User header becomes the exchange's principal. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
    static class ReactivePrincipal {
        @Bean
        @Order(-200)
        WebFilter userHeaderPrincipal() {
            return (exchange, chain) -> {
                String user = exchange.getRequest().getHeaders().getFirst("X-User");
                if (user == null) {
                    return chain.filter(exchange);
                }
                Principal principal = () -> user;
                return chain.filter(exchange.mutate().principal(Mono.just(principal)).build());
            };
        }
    }
}
