package dev.bulwark.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What a plain consumer of the published POMs (bulwark-bom imported, no bulwark-parent) resolves: the versions the
 * project builds and tests with, as the root POM's properties name them. Each library is found by a class of its
 * own on this module's test class path, which Maven resolved exactly as it would for a user's application; the
 * version is read from the jar's place in the local repository ({@code .../artifactId/VERSION/artifactId-VERSION.jar}).
 */
class PublishedVersionsTest {

    @Test
    void reactorCoreIsTheVersionTheProjectManagesNotLettucesOlderOne() throws Exception {
        assertEquals(property("reactor.version"), resolvedVersion("reactor.core.publisher.Flux", "reactor-core"));
    }

    @Test
    void lettuceIsTheTestedVersion() throws Exception {
        assertEquals(property("lettuce.version"), resolvedVersion("io.lettuce.core.RedisClient", "lettuce-core"));
    }

    @Test
    void kotlinIsTheTestedStandardLibraryAndCoroutines() throws Exception {
        assertEquals(property("kotlin.version"), resolvedVersion("kotlin.Unit", "kotlin-stdlib"));
        assertEquals(property("kotlinx-coroutines.version"),
                resolvedVersion("kotlinx.coroutines.CoroutineScope", "kotlinx-coroutines-core-jvm"));
    }

    @Test
    void micrometerIsTheVersionBulwarkMicrometerIsBuiltWithIncludingItsObservationApi() throws Exception {
        // Spring Framework 6.2 asks for an older micrometer-observation itself; without Boot's BOM the nearer
        // declaration (bulwark-micrometer's micrometer-core) wins, and the pom leaves this artifact out of the
        // convergence rule for that reason. Boot applications get Boot's Micrometer from Boot's BOM instead.
        assertEquals(property("micrometer.version"),
                resolvedVersion("io.micrometer.core.instrument.MeterRegistry", "micrometer-core"));
        assertEquals(property("micrometer.version"),
                resolvedVersion("io.micrometer.observation.ObservationRegistry", "micrometer-observation"));
    }

    @Test
    void springBootIsTheLineTheStarterIsBuiltAgainst() throws Exception {
        assertEquals(property("spring-boot3.version"), resolvedVersion(
                "org.springframework.boot.autoconfigure.SpringBootApplication", "spring-boot-autoconfigure"));
    }

    @Test
    void grpcAndOpenTelemetryAreTheTestedApis() throws Exception {
        assertEquals(property("grpc.version"), resolvedVersion("io.grpc.ServerInterceptor", "grpc-api"));
        assertEquals(property("opentelemetry.version"),
                resolvedVersion("io.opentelemetry.api.metrics.Meter", "opentelemetry-api"));
    }

    @Test
    void everyPublishedModuleIsOnTheClassPathAtTheProjectVersion() throws Exception {
        for (String type : new String[] {"dev.bulwark.Bulkhead", "dev.bulwark.redis.RedisBulkhead",
                "dev.bulwark.micrometer.BulwarkMetrics", "dev.bulwark.reactor.BulwarkOperators",
                "dev.bulwark.spring.BulwarkAutoConfiguration", "dev.bulwark.grpc.BulkheadServerInterceptor",
                "dev.bulwark.http.BulwarkHttpClient", "dev.bulwark.opentelemetry.BulwarkTelemetry"}) {
            assertNotNull(Class.forName(type, false, getClass().getClassLoader()), type);
        }
        assertNotNull(Class.forName("dev.bulwark.kotlin.BulkheadCoroutines", false, getClass().getClassLoader()));
    }

    private static String property(String name) throws IOException {
        String pom = Files.readString(Path.of(System.getProperty("bulwark.root.pom")));
        Matcher matcher = Pattern.compile("<" + Pattern.quote(name) + ">([^<]+)</" + Pattern.quote(name) + ">")
                .matcher(pom);
        if (!matcher.find()) {
            throw new AssertionError("The root pom.xml has no property " + name);
        }
        return matcher.group(1).trim();
    }

    private static String resolvedVersion(String className, String artifactId)
            throws ClassNotFoundException, URISyntaxException {
        Class<?> type = Class.forName(className, false, PublishedVersionsTest.class.getClassLoader());
        Path jar = Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        String fileName = jar.getFileName().toString();
        String version = jar.getParent().getFileName().toString();
        assertEquals(artifactId + "-" + version + ".jar", fileName,
                className + " should come from " + artifactId + " in a Maven repository, but came from " + jar);
        return version;
    }
}
