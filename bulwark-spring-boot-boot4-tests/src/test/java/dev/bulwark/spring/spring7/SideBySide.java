package dev.bulwark.spring.spring7;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * What the comparison tests share: one test application started twice (served by Spring, and by Bulwark with
 * {@code bulwark.spring-annotations.enabled=true}), each scenario run against both and required to see the same.
 */
final class SideBySide {

    private SideBySide() {
    }

    /**
     * Starts {@code app} with its {@code base} properties and then {@code properties}, so that a later one wins.
     *
     * @param app the application's configuration class
     * @param base the properties every run of it starts from
     * @param properties this run's own, {@code name=value}
     * @return the running application
     */
    static ConfigurableApplicationContext launch(Class<?> app, List<String> base, String... properties) {
        List<String> all = new ArrayList<>(base);
        all.addAll(Arrays.asList(properties));
        return new SpringApplicationBuilder(app).properties(all.toArray(String[]::new)).run();
    }

    /**
     * Runs {@code scenario} against Spring's application and then Bulwark's, and requires the same answers.
     *
     * @param spring the application served by Spring
     * @param bulwark the application served by Bulwark
     * @param scenario what a caller does, and what it sees
     * @param <A> how a test reaches an application
     * @return what both saw
     */
    static <A> List<String> both(A spring, A bulwark, Function<A, List<String>> scenario) {
        List<String> springSaw = scenario.apply(spring);
        List<String> bulwarkSaw = scenario.apply(bulwark);
        assertThat(bulwarkSaw).as("Bulwark's against Spring's").isEqualTo(springSaw);
        return bulwarkSaw;
    }

    /**
     * Stops the applications that started, in order.
     *
     * @param apps the applications, {@code null} for one that did not start
     * @throws Exception what closing one threw; the ones after it are then left running, as the JVM ends soon
     */
    static void close(AutoCloseable... apps) throws Exception {
        for (AutoCloseable app : apps) {
            if (app != null) {
                app.close();
            }
        }
    }
}
