package dev.bulwark.spring.spring7;

import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Scope;
import org.springframework.http.ResponseEntity;
import org.springframework.resilience.InvocationRejectedException;
import org.springframework.resilience.annotation.ConcurrencyLimit;
import org.springframework.resilience.annotation.EnableResilientMethods;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * One application with Spring Framework 7's {@code @ConcurrencyLimit} on its services, served by Spring
 * ({@code @EnableResilientMethods}) or, with {@code bulwark.spring-annotations.enabled=true}, by Bulwark. Callers see
 * it over HTTP: 200 with the method's answer, or 429 with the refusal's class, message and target.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@EnableResilientMethods
@Import(ResilientApp.Endpoints.class)
public class ResilientApp {

    /** The properties every run starts from. */
    static final List<String> BASE = List.of("server.port=0", "spring.main.banner-mode=off",
            "logging.level.root=WARN", "test.reject-limit=2", "management.endpoints.web.exposure.include=bulwark");

    @Bean
    Holds holds() {
        return new Holds();
    }

    @Bean
    Throttled throttled(Holds holds) {
        return new Throttled(holds);
    }

    @Bean
    SharedThrottle sharedThrottle(Holds holds) {
        return new SharedThrottle(holds);
    }

    @Bean
    @Scope("prototype")
    PerInstance perInstance(Holds holds) {
        return new PerInstance(holds);
    }

    /** An interface, so that the proxy kind shows: an interface-based proxy could not be injected as Throttled. */
    public interface Refusing {
        String none();
    }

    /** Methods with a limit of their own each. */
    public static class Throttled implements Refusing {
        private final Holds holds;

        Throttled(Holds holds) {
            this.holds = holds;
        }

        /** BLOCK (the default): waits for a slot. */
        @ConcurrencyLimit(2)
        public String block() throws InterruptedException {
            holds.enter("block");
            return "block done";
        }

        /** REJECT, the limit a placeholder. */
        @ConcurrencyLimit(limitString = "${test.reject-limit}", policy = ConcurrencyLimit.ThrottlePolicy.REJECT)
        public String reject(boolean hold) throws InterruptedException {
            if (hold) {
                holds.enter("reject");
            }
            return "reject done";
        }

        /** BLOCK, for the maximum wait Bulwark adds. */
        @ConcurrencyLimit(1)
        public String brief() throws InterruptedException {
            holds.enter("brief");
            return "brief done";
        }

        /** Refuses every call. */
        @ConcurrencyLimit(0)
        @Override
        public String none() {
            return "none done";
        }

        /** No limit at all. */
        @ConcurrencyLimit(-1)
        public String unbounded() throws InterruptedException {
            holds.enter("unbounded");
            return "unbounded done";
        }

        /** Its own exceptions reach the caller untouched. */
        @ConcurrencyLimit(limit = 1, policy = ConcurrencyLimit.ThrottlePolicy.REJECT)
        public String fails() {
            throw new RejectedExecutionException("the method's own");
        }
    }

    /** One limit on the class, shared by its methods. */
    @ConcurrencyLimit(limit = 1, policy = ConcurrencyLimit.ThrottlePolicy.REJECT)
    public static class SharedThrottle {
        private final Holds holds;

        SharedThrottle(Holds holds) {
            this.holds = holds;
        }

        public String first(boolean hold) throws InterruptedException {
            if (hold) {
                holds.enter("shared");
            }
            return "first done";
        }

        public String second() {
            return "second done";
        }
    }

    /** A prototype bean: each instance has its own throttle. */
    public static class PerInstance {
        private final Holds holds;

        PerInstance(Holds holds) {
            this.holds = holds;
        }

        @ConcurrencyLimit(limit = 1, policy = ConcurrencyLimit.ThrottlePolicy.REJECT)
        public String call(boolean hold) throws InterruptedException {
            if (hold) {
                holds.enter("instance");
            }
            return "instance done";
        }
    }

    /** The HTTP face of the services. */
    @RestController
    public static class Endpoints {
        private final Throttled throttled;
        private final SharedThrottle shared;
        private final List<PerInstance> instances;
        private final ApplicationContext context;

        Endpoints(Throttled throttled, SharedThrottle shared, ObjectProvider<PerInstance> instances,
                  ApplicationContext context) {
            this.throttled = throttled;
            this.shared = shared;
            this.instances = List.of(instances.getObject(), instances.getObject());
            this.context = context;
        }

        @GetMapping("/block")
        String block() throws InterruptedException {
            return throttled.block();
        }

        @GetMapping("/reject")
        String reject(@RequestParam("hold") boolean hold) throws InterruptedException {
            return throttled.reject(hold);
        }

        @GetMapping("/brief")
        String brief() throws InterruptedException {
            return throttled.brief();
        }

        @GetMapping("/none")
        String none() {
            return throttled.none();
        }

        @GetMapping("/unbounded")
        String unbounded() throws InterruptedException {
            return throttled.unbounded();
        }

        @GetMapping("/fails")
        String fails() {
            return throttled.fails();
        }

        @GetMapping("/shared/first")
        String first(@RequestParam("hold") boolean hold) throws InterruptedException {
            return shared.first(hold);
        }

        @GetMapping("/shared/second")
        String second() {
            return shared.second();
        }

        @GetMapping("/instance/{index}")
        String instance(@PathVariable("index") int index, @RequestParam("hold") boolean hold)
                throws InterruptedException {
            return instances.get(index).call(hold);
        }

        /** What the caller sees of a refusal: its class, message and whom it names as the target. */
        @ExceptionHandler(RejectedExecutionException.class)
        ResponseEntity<String> refused(RejectedExecutionException refused) {
            String target = "none";
            if (refused instanceof InvocationRejectedException) {
                Object named = ((InvocationRejectedException) refused).getTarget();
                target = named == throttled ? "throttled" : named == shared ? "sharedThrottle"
                        : named == instances.get(0) ? "instance 0" : named == instances.get(1) ? "instance 1"
                        : String.valueOf(named);
            }
            // The cause goes in a header: Spring's refusals have none, Bulwark's carry its BulkheadRejectedException.
            return ResponseEntity.status(429).header("X-Cause", String.valueOf(refused.getCause()))
                    .body(refused.getClass().getName() + ": " + refused.getMessage()
                    + " [target " + target + "]");
        }
    }
}
