package dev.bulwark.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.cli.BulwarkCli;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code bulwark migrate resilience4j}: the exact output for the configuration examples of Resilience4j's own
 * documentation and starter (test resources, each naming its source), and for the edge cases of inheritance, relaxed
 * names, waits, lists, profiles and bad input.
 */
class MigrateResilience4jCommandTest {

    private static final String RESOURCES = "/dev/bulwark/cli/internal/migrate/";
    private static final String HEADER = "# bulwark.* settings migrated from the resilience4j.* settings of %s by "
            + "'bulwark migrate resilience4j'\n";

    @TempDir
    Path dir;

    private record Outcome(int exitCode, String out, String err) {
    }

    private static Outcome run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exitCode = BulwarkCli.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Outcome(exitCode, out.toString(), err.toString());
    }

    private Outcome migrate(String fileName, String text) throws IOException {
        Path file = dir.resolve(fileName);
        Files.writeString(file, text);
        return run("migrate", "resilience4j", file.toString());
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = MigrateResilience4jCommandTest.class.getResourceAsStream(RESOURCES + name)) {
            assertThat(in).as(name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "resilience4j-docs-spring-boot.yml, resilience4j-docs-spring-boot.expected.yml",
        "resilience4j-spring-boot3-demo.yml, resilience4j-spring-boot3-demo.expected.yml",
        "resilience4j-spring-boot3-starter.yaml, resilience4j-spring-boot3-starter.expected.yaml"})
    void resilience4jsOwnExamplesMigrateExactly(String input, String expected) throws IOException {
        Outcome outcome = migrate(input, resource(input));

        assertThat(outcome.err()).isEmpty();
        assertThat(outcome.exitCode()).isZero();
        assertThat(outcome.out()).isEqualTo(resource(expected));
    }

    @Test
    void theDocumentationsMaxRetryAttemptsIsReadAsMaxAttempts() throws IOException {
        String out = migrate("docs.yml", resource("resilience4j-docs-spring-boot.yml")).out();

        // maxRetryAttempts 3 is 2 retries, as are the defaults, so only the wait (10s, then 20s) is written.
        assertThat(out).contains("""
                  retries:
                    backendA:
                      backoff-initial: 10s
                      backoff-max: 20s
                """);
        assertThat(out).contains("# resilience4j.retry.instances.backendA.maxRetryAttempts (line 25): Resilience4j "
                + "1.x's name for maxAttempts (2.x ignores it and makes 3 attempts): migrated as maxAttempts\n");
    }

    @Test
    void theDemosPoliciesResolveThroughConfigsDefaultAndBaseConfig() throws IOException {
        String out = migrate("demo.yml", resource("resilience4j-spring-boot3-demo.yml")).out();

        // configs.default (maxConcurrentCalls 100) is what an undeclared name gets; backendB's maxWaitDuration 10ms
        // lets any number wait; a retry's maxAttempts 3 is 2 retries; the bare waitDuration 100 is milliseconds.
        assertThat(out).contains("""
                bulwark:
                  defaults:
                    bulkhead:
                      max-concurrency: 100
                      max-queue: 0
                    retry:
                      max-retries: 2
                      delay: 100ms
                """);
        assertThat(out).contains("""
                    backendB:
                      max-concurrency: 20
                      max-queue: 2147483647
                      max-wait: 10ms
                    backendA-thread-pool:
                      max-concurrency: 4
                      max-queue: 2
                """);
        assertThat(out).contains("# resilience4j.timelimiter.configs.default.cancelRunningFuture (line 127): no "
                + "equivalent: at the deadline Bulwark's timeout always cancels the call's future");
    }

    @Test
    void propertiesInRelaxedFormsGivePropertiesBack() throws IOException {
        Outcome outcome = migrate("application.properties", """
                # Resilience4j in properties form
                resilience4j.bulkhead.configs.default.max-concurrent-calls=50
                resilience4j.bulkhead.instances.inventory.max_wait_duration=PT0.2S
                resilience4j.retry.backends.orders.maxAttempts=4
                resilience4j.retry.backends.orders.wait-duration=200
                resilience4j.retry.backends.orders.enable-exponential-backoff=true
                resilience4j.retry.backends.orders.exponential-backoff-multiplier=2
                resilience4j.retry.backends.orders.enable-randomized-wait=true
                resilience4j.retry.backends.orders.randomized-wait-factor=0.25
                resilience4j.retry.backends.orders.retry-exceptions=java.io.IOException,\\
                    java.util.concurrent.TimeoutException
                resilience4j.retry.instances.[pay.ments].maxAttempts=1
                resilience4j.retry.instances.[pay.ments].ignoreExceptions[0]=java.lang.IllegalStateException
                resilience4j.timeLimiter.instances.pricing.timeout-duration=500ms
                """);

        assertThat(outcome.exitCode()).isZero();
        assertThat(outcome.out()).isEqualTo(HEADER.formatted("application.properties") + """
                # Not migrated, or migrated with a difference:
                # resilience4j.bulkhead.instances.inventory.max_wait_duration (line 3): Resilience4j lets any number \
                of callers wait up to 200ms; max-queue 2147483647 keeps that, but a bound of your choosing is safer
                # resilience4j.retry.instances.[pay.ments].ignoreExceptions (line 13): no bulwark.* equivalent: \
                retry-on lists what is retried and cannot exclude subclasses; leave them out of retry-on, or build \
                the retry in code with Retry.builder().handleIf(...)
                bulwark.defaults.bulkhead.max-concurrency=50
                bulwark.defaults.bulkhead.max-queue=0
                bulwark.defaults.retry.max-retries=2
                bulwark.defaults.retry.delay=500ms
                bulwark.defaults.timeout.duration=1s
                bulwark.bulkheads.inventory.max-queue=2147483647
                bulwark.bulkheads.inventory.max-wait=200ms
                bulwark.retries.orders.max-retries=3
                bulwark.retries.orders.backoff-initial=200ms
                bulwark.retries.orders.backoff-max=800ms
                bulwark.retries.orders.jitter=0.25
                bulwark.retries.orders.retry-on=java.io.IOException,java.util.concurrent.TimeoutException
                bulwark.retries.[pay.ments].max-retries=0
                bulwark.timeouts.pricing.duration=500ms
                """);
    }

    @Test
    void baseConfigChainsAndTheInstanceNamedDefaultResolveAsResilience4jDoes() throws IOException {
        Outcome outcome = migrate("application.yml", """
                resilience4j.bulkhead:
                  configs:
                    default: { maxConcurrentCalls: 7 }
                    shared: { maxWaitDuration: 1s }        # no baseConfig: over configs.default
                    narrow: { baseConfig: shared, maxConcurrentCalls: 2 }
                  instances:
                    a: { baseConfig: narrow }              # 2, waits 1s
                    b: { maxConcurrentCalls: 7 }           # the same as an undeclared name: declared bare
                    default: { maxWaitDuration: 0 }        # named default: Resilience4j's defaults, not configs.default
                    c: {}
                """);

        assertThat(outcome.exitCode()).isZero();
        assertThat(outcome.out()).endsWith("""
                bulwark:
                  defaults:
                    bulkhead:
                      max-concurrency: 7
                      max-queue: 0
                  bulkheads:
                    a:
                      max-concurrency: 2
                      max-queue: 2147483647
                      max-wait: 1s
                    b:
                    default:
                      max-concurrency: 25
                    c:
                """);
    }

    @Test
    void waitsThatBulwarksDoublingBackoffCannotGiveAreNotedWithBothSequences() throws IOException {
        Outcome outcome = migrate("application.yml", """
                resilience4j:
                  retry:
                    instances:
                      slow:
                        maxAttempts: 4
                        waitDuration: 100ms
                        enableExponentialBackoff: true      # multiplier 1.5 by default
                      capped:
                        maxAttempts: 5
                        waitDuration: 100ms
                        enableExponentialBackoff: true
                        exponentialBackoffMultiplier: 2
                        exponentialMaxWaitDuration: 300ms
                      flat:
                        maxAttempts: 3
                        waitDuration: 1s
                        enableExponentialBackoff: true
                        exponentialBackoffMultiplier: 1
                      once:
                        maxAttempts: 1
                      custom:
                        intervalBiFunction: com.example.Waits
                        resultPredicate: com.example.Empty
                        failAfterMaxAttempts: true
                """);

        assertThat(outcome.exitCode()).isZero();
        assertThat(outcome.out()).isEqualTo(HEADER.formatted("application.yml") + """
                # Not migrated, or migrated with a difference:
                # resilience4j.retry.instances.slow.waitDuration (line 6): Resilience4j multiplies each wait by 1.5 \
                and waits 100, 150, 225 ms; Bulwark's backoff doubles each wait and waits 100, 200, 225 ms
                # resilience4j.retry.instances.custom.intervalBiFunction (line 22): no equivalent: Bulwark waits a \
                fixed delay or a doubling backoff, with jitter; the retry's wait is not migrated
                # resilience4j.retry.instances.custom.resultPredicate (line 23): no equivalent: Bulwark retries \
                failures only, never a result
                # resilience4j.retry.instances.custom.failAfterMaxAttempts (line 24): no equivalent: it concerns \
                results retried by resultPredicate, and Bulwark retries failures only
                bulwark:
                  defaults:
                    retry:
                      max-retries: 2
                      delay: 500ms
                  retries:
                    slow:
                      max-retries: 3
                      backoff-initial: 100ms
                      backoff-max: 225ms
                    capped:
                      max-retries: 4
                      backoff-initial: 100ms
                      backoff-max: 300ms
                    flat:
                      delay: 1s
                    once:
                      max-retries: 0
                    custom:
                """);
    }

    @Test
    void whatBulwarkCannotDeclareIsNotedWhereItIsWritten() throws IOException {
        Outcome outcome = migrate("application.yml", """
                resilience4j:
                  bulkhead:
                    instances:
                      fair: { fairCallHandlingStrategyEnabled: false, eventConsumerBufferSize: 10 }
                  thread-pool-bulkhead:
                    instances:
                      pool: { queueCapacity: 5, keepAliveDuration: 1s }
                  retry:
                    configs:
                      default: { waitDuration: 200ms, retryExceptions: [java.io.IOException] }
                    instances:
                      nowait: { waitDuration: 0, retryExceptionPredicate: com.example.P }
                      sized: { maxAttempts: "${RETRIES:3}" }
                  timelimiter:
                    instances:
                      zero: { timeoutDuration: 0s }
                  circuitbreaker:
                    instances:
                      x: { slidingWindowSize: 10 }
                """);

        assertThat(outcome.exitCode()).isZero();
        assertThat(outcome.out()).contains("""
                # resilience4j.bulkhead.instances.fair.fairCallHandlingStrategyEnabled (line 4): not a property of \
                Resilience4j's Spring Boot starter (only of BulkheadConfig's builder), so Spring ignores it; \
                Bulwark's queue always serves callers in arrival order (fair)
                # resilience4j.bulkhead.instances.fair.eventConsumerBufferSize (line 4): no equivalent: Bulwark keeps \
                no event buffer (use its listeners or the bulwark.* meters)
                """);
        assertThat(outcome.out()).contains("# resilience4j.thread-pool-bulkhead.instances.pool (line 7): "
                + "maxThreadPoolSize is not set: Resilience4j uses the number of processors of the machine it runs "
                + "on, which the migration cannot know; set max-concurrency by hand (else it is 25)\n");
        assertThat(outcome.out()).contains("# resilience4j.thread-pool-bulkhead.instances.pool.keepAliveDuration "
                + "(line 7): no equivalent: Bulwark has no threads to keep alive\n");
        assertThat(outcome.out()).contains("# resilience4j.retry.instances.nowait (line 12): waits no time between "
                + "attempts, which Bulwark cannot declare for one retry while bulwark.defaults.retry has a wait: it "
                + "inherits {delay=200ms}\n");
        assertThat(outcome.out()).contains("# resilience4j.retry.instances.nowait.retryExceptionPredicate (line 12)");
        assertThat(outcome.out()).contains("# resilience4j.retry.instances.sized.maxAttempts (line 13): a "
                + "placeholder, which the migration cannot resolve: not migrated, set it by hand\n");
        assertThat(outcome.out()).contains("# resilience4j.timelimiter.instances.zero.timeoutDuration (line 16): a "
                + "timeout of 0 cannot be declared in Bulwark (a duration must be positive): set a duration by hand\n");
        assertThat(outcome.out()).contains("# resilience4j.circuitbreaker (line 19): Bulwark has no circuit "
                + "breaker: not migrated\n");
        assertThat(outcome.out()).endsWith("""
                  bulkheads:
                    fair:
                    pool:
                      max-queue: 5
                  retries:
                    nowait:
                    sized:
                  timeouts:
                    zero:
                """);
    }

    @Test
    void aProfilesDocumentIsNotedAndLeftOutAndLaterDocumentsOverride() throws IOException {
        Outcome outcome = migrate("application.yml", """
                resilience4j.timelimiter.instances.pricing.timeoutDuration: 2s
                ---
                resilience4j.timelimiter.instances.pricing.timeoutDuration: 3s
                ---
                spring.config.activate.on-profile: test
                resilience4j.timelimiter.instances.pricing.timeoutDuration: 9s
                """);

        assertThat(outcome.out()).isEqualTo(HEADER.formatted("application.yml") + """
                # Not migrated, or migrated with a difference:
                # spring.config.activate.on-profile (line 5): this document applies only to profile 'test': its \
                resilience4j settings are not migrated (migrate them from a file of their own into the profile's \
                document)
                bulwark:
                  defaults:
                    timeout:
                      duration: 1s
                  timeouts:
                    pricing:
                      duration: 3s
                """);
    }

    @Test
    void aNameWithADotIsWrittenInBracketsAsSpringNeedsIt() throws IOException {
        Outcome outcome = migrate("application.yml", """
                resilience4j.retry.instances:
                  "[pay.ments]": { maxAttempts: 5 }
                """);

        assertThat(outcome.out()).isEqualTo(HEADER.formatted("application.yml") + """
                bulwark:
                  defaults:
                    retry:
                      max-retries: 2
                      delay: 500ms
                  retries:
                    "[pay.ments]":
                      max-retries: 4
                """);
    }

    @Test
    void aFileWithoutResilience4jSettingsHasNothingToMigrate() throws IOException {
        Outcome outcome = migrate("application.yml", "server.port: 8080\n");

        assertThat(outcome.exitCode()).isZero();
        assertThat(outcome.out()).isEqualTo(HEADER.formatted("application.yml") + "# No resilience4j bulkhead, "
                + "thread-pool-bulkhead, retry or timelimiter policy found: nothing to migrate\n");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
        "application.yml | resilience4j:\\n  retry: [1 | application.yml:2: not valid YAML: expected ',' or ']'",
        "application.yml | a: 1\\na: 2 | application.yml:2: duplicate key 'a'",
        "application.yml | resilience4j.bulkhead.instances.a.maxConcurrentCalls: many"
                + " | application.yml:1: resilience4j.bulkhead.instances.a.maxConcurrentCalls: expected a whole number,"
                + " got 'many'",
        "application.yml | resilience4j.bulkhead.instances.a.maxConcurrentCalls: 0"
                + " | application.yml:1: resilience4j.bulkhead.instances.a.maxConcurrentCalls: must be at least 1,"
                + " got '0' (Resilience4j refuses to start)",
        "application.yml | resilience4j.retry.instances.a.waitDuration: soon"
                + " | application.yml:1: resilience4j.retry.instances.a.waitDuration: expected a duration (such as"
                + " 500ms, 2s or PT2S), got 'soon'",
        "application.yml | resilience4j.retry:\\n  instances:\\n    a:\\n      baseConfig: missing"
                + " | application.yml:4: resilience4j.retry.instances.a.baseConfig: no config named 'missing' under"
                + " resilience4j.retry.configs (Resilience4j refuses to start: ConfigurationNotFoundException)",
        "application.yml | resilience4j.retry.configs:\\n  x: {baseConfig: y}\\n  y: {baseConfig: x}\\n"
                + "resilience4j.retry.instances.a.baseConfig: x"
                + " | application.yml:3: resilience4j.retry.configs.y.baseConfig: the configs' baseConfig settings form"
                + " a cycle through 'x'",
        "application.properties | a=1\\nresilience4j.timelimiter.instances.t.timeoutDuration=-1s"
                + " | application.properties:2: resilience4j.timelimiter.instances.t.timeoutDuration: must not be"
                + " negative, got '-1s' (Resilience4j refuses to start)",
        "application.yml | resilience4j: &loop\\n  retry: *loop"
                + " | application.yml:1: 'resilience4j.retry' refers to itself through an alias",
        "application.properties | resilience4j.retry.instances.a.maxAttempts=\\u12"
                + " | application.properties:1: not a valid properties line: Malformed \\uxxxx encoding.",
        "application.json | {} | application.json: unknown format: expected a .yml, .yaml or .properties file"})
    void badInputIsRefusedNamingTheFileAndLine(String fileName, String text, String message) throws IOException {
        Outcome outcome = migrate(fileName, text.replace("\\n", "\n"));

        assertThat(outcome.exitCode()).isEqualTo(2);
        assertThat(outcome.out()).isEmpty();
        assertThat(outcome.err()).startsWith("bulwark migrate resilience4j: " + dir.resolve(message));
        assertThat(outcome.err().lines()).hasSize(1);
    }

    @Test
    void aMissingFileIsRefused() {
        Outcome outcome = run("migrate", "resilience4j", dir.resolve("absent.yml").toString());

        assertThat(outcome.exitCode()).isEqualTo(2);
        assertThat(outcome.err()).isEqualTo("bulwark migrate resilience4j: " + dir.resolve("absent.yml")
                + ": no such file\n");
    }

    @Test
    void theHelpListsAndDescribesTheCommand() {
        assertThat(run("--help").out()).contains("migrate").contains("bulwark migrate resilience4j application.yml");
        Outcome help = run("migrate", "resilience4j", "--help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.out()).contains("Usage: bulwark migrate resilience4j [-hV] FILE")
                .contains("docs/migrating-from-resilience4j.md");
        assertThat(run("migrate").err()).startsWith("bulwark migrate: missing command: resilience4j");
    }
}
