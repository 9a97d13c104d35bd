package dev.bulwark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the packaged jar as a user does, {@code java -jar bulwark-cli/target/bulwark.jar ...}, in a JVM of its
 * own: the shaded jar must start, find its dependencies and its version, and keep its exit codes.
 */
class BulwarkJarIT {

    private static final Path JAR = Path.of("target", "bulwark.jar");

    private record Run(int exitCode, String out, String err) {
    }

    private static Run java(Path directory, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-jar");
        command.add(JAR.toAbsolutePath().toString());
        command.addAll(List.of(args));
        Path out = directory.resolve("out.txt");
        Path err = directory.resolve("err.txt");
        Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("bulwark finished").isTrue();
        return new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    @Test
    void theJarIsWhereTheReadmeSays() {
        assertThat(JAR).isRegularFile();
    }

    @Test
    void printsItsVersion(@TempDir Path directory) throws Exception {
        Run run = java(directory, "--version");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).startsWith("bulwark 0.").doesNotContain("unknown");
    }

    @Test
    void simulatesWithPlainProgressWhenNotOnATerminal(@TempDir Path directory) throws Exception {
        Run run = java(directory, "simulate", "--duration", "1s", "--drain", "200ms", "--format", "json");

        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode json = new ObjectMapper().readTree(run.out());
        assertThat(json.at("/outcomes/arrivals").asLong()).isPositive();
        // Standard output and error are files here, not a terminal: one plain progress line per second.
        assertThat(run.err()).contains("arrivals").doesNotContain("\r").doesNotContain("\u001b");
        assertThat(run.err().lines().filter(line -> line.startsWith("["))).hasSizeBetween(1, 4);
    }

    @Test
    void badInputIsOneLineAndExitCode2(@TempDir Path directory) throws Exception {
        Run run = java(directory, "simulate", "--limit", "0");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err().lines()).hasSize(1);
        assertThat(run.err()).contains("--limit: expected a whole number of at least 1, got '0'");
        assertThat(run.out()).isEmpty();
    }

    @Test
    void migratesAResilience4jFileWithTheShadedYamlParser(@TempDir Path directory) throws Exception {
        Path file = directory.resolve("application.yml");
        Files.writeString(file, "resilience4j.retry.instances.orders.maxAttempts: 4\n");

        Run run = java(directory, "migrate", "resilience4j", file.toString());

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).endsWith("  retries:\n    orders:\n      max-retries: 3\n");
    }
}
