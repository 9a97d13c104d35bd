package dev.bulwark.lab;

import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.resilience.annotation.EnableResilientMethods;

/**
 * The service under test: Spring Boot (MVC on Tomcat with its default 200 worker threads) and HikariCP with a pool
 * of {@link #POOL_SIZE} connections to the lab's PostgreSQL, and a JDK {@code HttpClient} to the lab's
 * {@link RemoteService} ({@link RemoteWork}), serving {@link WorkController}'s routes, and
 * Bulwark's inbound shedding filter on the routes of {@link EdgeMode#SHED} and {@link EdgeMode#PRIORITIES}.
 */
@SpringBootApplication
@EnableResilientMethods
class LabApplication {

    /** HikariCP's pool size. */
    static final int POOL_SIZE = 10;
    /** HikariCP's connection timeout: a request waits this long for a connection before it fails. */
    static final int POOL_TIMEOUT_MILLIS = 2000;

    /**
     * Starts the service on a free loopback port.
     *
     * @param jdbcUrl the database
     * @param remote the second HTTP service's route
     * @return the running application; close it to stop it
     */
    static ConfigurableApplicationContext start(String jdbcUrl, URI remote) {
        Map<String, Object> properties = new HashMap<>();
        properties.put(RemoteWork.URI_PROPERTY, remote.toString());
        properties.put("server.port", "0");
        properties.put("server.address", "127.0.0.1");
        properties.put("spring.datasource.url", jdbcUrl);
        properties.put("spring.datasource.username", PostgresServer.USER);
        properties.put("spring.datasource.hikari.maximum-pool-size", Integer.toString(POOL_SIZE));
        properties.put("spring.datasource.hikari.minimum-idle", Integer.toString(POOL_SIZE));
        properties.put("spring.datasource.hikari.connection-timeout", Integer.toString(POOL_TIMEOUT_MILLIS));
        // The shedding experiment's edge (EdgeMode): three bulkheads at the pool's size, with the lab's queue and
        // maximum wait, and five routes. /open/** matches none and is not shed.
        for (String bulkhead : new String[] {"edge", "flat", "keep"}) {
            properties.put("bulwark.bulkheads." + bulkhead + ".max-concurrency", Integer.toString(POOL_SIZE));
            properties.put("bulwark.bulkheads." + bulkhead + ".max-queue",
                    Integer.toString(DependencyGuard.queueFor(POOL_SIZE)));
            properties.put("bulwark.bulkheads." + bulkhead + ".max-wait",
                    LabExperiment.MAX_WAIT.toMillis() + "ms");
        }
        properties.put("bulwark.shedding.routes[0].pattern", "/edge/critical");
        properties.put("bulwark.shedding.routes[0].bulkhead", "edge");
        properties.put("bulwark.shedding.routes[0].default-priority", "CRITICAL");
        properties.put("bulwark.shedding.routes[1].pattern", "/edge/sheddable");
        properties.put("bulwark.shedding.routes[1].bulkhead", "edge");
        properties.put("bulwark.shedding.routes[1].default-priority", "SHEDDABLE");
        properties.put("bulwark.shedding.routes[2].pattern", "/flat/**");
        properties.put("bulwark.shedding.routes[2].bulkhead", "flat");
        properties.put("bulwark.shedding.routes[3].pattern", "/keep/critical");
        properties.put("bulwark.shedding.routes[3].bulkhead", "keep");
        properties.put("bulwark.shedding.routes[3].default-priority", "CRITICAL");
        properties.put("bulwark.shedding.routes[3].status", "429");
        properties.put("bulwark.shedding.routes[4].pattern", "/keep/sheddable");
        properties.put("bulwark.shedding.routes[4].bulkhead", "keep");
        properties.put("bulwark.shedding.routes[4].default-priority", "SHEDDABLE");
        properties.put("bulwark.shedding.routes[4].status", "429");
        properties.put("spring.jmx.enabled", "false");
        properties.put("logging.level.root", "WARN");
        properties.put("logging.level.com.zaxxer.hikari", "ERROR");
        SpringApplication application = new SpringApplication(LabApplication.class);
        application.setBannerMode(Banner.Mode.OFF);
        application.setLogStartupInfo(false);
        application.setDefaultProperties(properties);
        return application.run();
    }

    /**
     * Returns the port the service listens on.
     *
     * @param context the running application
     * @return its HTTP port
     */
    static int port(ConfigurableApplicationContext context) {
        return ((WebServerApplicationContext) context).getWebServer().getPort();
    }
}
