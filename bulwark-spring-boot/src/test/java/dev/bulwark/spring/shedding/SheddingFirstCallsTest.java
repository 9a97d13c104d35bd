package dev.bulwark.spring.shedding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.testing.FirstUseMeter;
import dev.bulwark.testing.FreshJvm;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Issue 37 for the load-shedding filters: in a fresh JVM (see {@link SheddingFirstCalls}, a real application per
 * stack), the first request shed does not render its refusal for the first time on the server's thread.
 *
 * <p>Before the fix the first refusal's rendering (the reason switch, each reason's detail text linked as a string
 * concatenation, the problem body) ran on the server thread: 14 classes loaded during the first shed request on
 * Tomcat (19 on WebFlux), which took 5 to 9 ms on the server when the machine was quiet and 10 to 45 ms when it was
 * loaded (WebFlux: 11 to 14 and 50 to 130 ms), against 0.5 to 5 ms for later ones. The routes bean now renders every
 * reason once at startup: 3 classes (the HTTP client's) and 2 to 3 ms on Tomcat; 7 classes and 9 to 10 ms on
 * WebFlux, the rest being Reactor Netty's own first write of such a response.
 *
 * <p>Those counts were the whole JVM's, the test's HTTP client included, whose selector thread loads a varying number
 * of lambdas meanwhile (a CI run saw 9 on Tomcat). The child now logs the classes by name: on Tomcat the first shed
 * request loaded two of Bulwark's (the Micrometer observation of the refusal: its context class and a lambda), on
 * WebFlux one (the lambda that supplied the problem body); now none, and the server's own loads are 0 on Tomcat and
 * 3 to 4 on WebFlux (Reactor Netty's first write of such a response).
 *
 * <p>Another CI run counted 13 classes on Tomcat, none the server's: a collection during the request, whose
 * notification Micrometer's JVM metrics handled on the JDK's notification thread (their listener, the JDK's
 * management data, a reflective accessor). The child leaves the JVM metrics out and collects just before its first
 * shed request: with the JVM metrics in, that count came to 34 on Tomcat; with them out, it stays within its bound.
 */
class SheddingFirstCallsTest {

    @Test
    void theFirstShedRequestFindsItsRefusalAlreadyRendered() throws Exception {
        ExecutorService twoAtATime = Executors.newFixedThreadPool(2);
        try {
            List<String> stacks = List.of("servlet", "reactive");
            List<Future<FreshJvm.Result>> runs = stacks.stream().map(stack -> twoAtATime.submit(() ->
                    FreshJvm.run(SheddingFirstCalls.class, Duration.ofSeconds(120),
                            List.of(FirstUseMeter.LOG_CLASS_LOADS), stack))).toList();
            for (int i = 0; i < stacks.size(); i++) {
                FreshJvm.Result run = runs.get(i).get();
                String output = stacks.get(i) + ":\n" + run.output();
                assertThat(run.exitCode()).as(output).isZero();
                Map<String, Long> figures = FirstUseMeter.figures(run.output());
                assertThat(figures).as(output).doesNotContainKeys("cold.unexpected", "warm.unexpected",
                        "warm2.unexpected");
                List<String> loaded = FirstUseMeter.classesLoaded(run.output(), "cold.shed");
                String loadedList = stacks.get(i) + ": the first shed request loaded " + loaded;
                // Bulwark's own first use of a refusal is paid at startup, on Boot 3 and Boot 4 alike.
                assertThat(loaded).as(loadedList).noneMatch(name -> name.startsWith("dev.bulwark.")
                        && !name.startsWith(SheddingFirstCalls.class.getName()));
                // Measured on Boot 3.5 only: on Boot 4 the first shed request loads 17 classes on Tomcat with the
                // fix, Boot's own, which nobody has taken apart yet. The test's HTTP client is left out: its
                // selector thread loads 3 to 7 of its own lambdas meanwhile, depending on scheduling.
                if (org.springframework.boot.SpringBootVersion.getVersion().startsWith("3.")) {
                    List<String> server = loaded.stream().filter(name -> !name.startsWith("jdk.internal.net.http.")
                            && !name.startsWith("java.net.http.")).toList();
                    assertThat(server).as(loadedList).hasSizeLessThanOrEqualTo(stacks.get(i).equals("servlet")
                            ? 2 : 6);
                }
                assertThat(figures.get("cold.server")).as(output).isBetween(0L, 1_000_000L);
            }
        } finally {
            twoAtATime.shutdownNow();
        }
    }
}
