package dev.bulwark.spring.shedding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.bulwark.AdaptiveLimit;
import dev.bulwark.Bulkhead;
import dev.bulwark.Bulkheads;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Issue 40, item 4: the shipped Grafana dashboard ({@code dashboards/bulwark-grafana.json}) and alerting rules
 * ({@code dashboards/bulwark-alerts.yml}) evaluated by a real Prometheus (the {@code prometheus} binary of Debian's
 * package, which {@code bin/setup} installs) scraping a running Boot application every second while it is driven
 * into sustained refusal over HTTP. Every expression of the dashboard and of the rules must return data with the
 * labels its legend or annotations name, and every alert must fire. The rules are loaded with their {@code for}
 * durations shortened to 2 s; their expressions are the shipped ones.
 */
class PrometheusDashboardTest {

    private static final Path DASHBOARDS = Path.of(System.getProperty("user.dir")).resolve("../dashboards")
            .normalize();
    private static final Pattern LEGEND_LABEL = Pattern.compile("\\{\\{\\s*(\\w+)\\s*}}");
    private static final Pattern ANNOTATION_LABEL = Pattern.compile("\\$labels\\.(\\w+)");
    private static final Pattern LABEL_VALUES = Pattern.compile("label_values\\((\\w+),\\s*(\\w+)\\)");
    private static final Duration MAX_WAIT = Duration.ofSeconds(3);

    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** Registers an adaptive bulkhead, as an application bean would, for the "limit over time" panel. */
    @Configuration(proxyBeanMethods = false)
    static class AdaptiveBulkhead {
        @Bean
        Bulkhead adaptiveBulkhead(Bulkheads bulkheads) {
            return bulkheads.register(Bulkhead.builder().name("adaptive").maxConcurrency(8)
                    .adaptive(AdaptiveLimit.aimd().build()).build());
        }
    }

    @Test
    void everyPanelAndRuleReturnsLabelledDataAndTheAlertsFire(@TempDir Path dir) throws Exception {
        Path prometheus = onPath("prometheus");
        assumeTrue(prometheus != null, "Skipped: no `prometheus` binary on the PATH. bin/setup installs it (Debian's "
                + "prometheus package); this test needs it to evaluate dashboards/ in a real Prometheus.");
        Path promtool = onPath("promtool");
        if (promtool != null) {
            assertThat(run(promtool, "check", "rules", DASHBOARDS.resolve("bulwark-alerts.yml").toString()))
                    .contains("SUCCESS: 4 rules found");
        }
        JsonNode dashboard = json.readTree(DASHBOARDS.resolve("bulwark-grafana.json").toFile());

        ScheduledExecutorService load = Executors.newSingleThreadScheduledExecutor();
        Process server = null;
        try (RunningApp app = start()) {
            int port = Integer.parseInt(app.bean(org.springframework.core.env.Environment.class)
                    .getProperty("local.server.port"));
            int prometheusPort = freePort();
            long started = System.currentTimeMillis() / 1000;
            server = startPrometheus(prometheus, promtool, dir, port, prometheusPort);
            String api = "http://127.0.0.1:" + prometheusPort;
            // Prometheus hands its first targets to the scrapers about 5 s after start: the drive begins once the
            // application has been scraped, so that every counter has a sample from before its increase.
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200))
                    .until(() -> !query(api, "up{job=\"bulwark-app\"} == 1").isEmpty());
            drive(app, load);

            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
                    .untilAsserted(() -> assertThat(problems(api, dashboard)).isEmpty());
            Map<String, Double> rates = values(api, "sum by (name, outcome) (rate(bulwark_bulkhead_calls_total"
                    + "{outcome=~\"rejected.*\"}[15s]))", "name", "outcome");
            assertThat(rates).containsKey("api rejected.queue_full");
            assertThat(values(api, "bulwark_bulkhead_max_concurrency", "name")).containsKeys("api", "other",
                    "adaptive");
            snapshot(api, dashboard, started);
        } finally {
            load.shutdownNow();
            if (server != null) {
                server.destroy();
                if (!server.waitFor(10, TimeUnit.SECONDS)) {
                    server.destroyForcibly();
                }
            }
        }
    }

    /**
     * Writes every panel's series over the run, as Prometheus answers its range queries, to
     * target/dashboard-snapshot.json: bin/dashboard-picture draws the documentation's picture from it.
     */
    private void snapshot(String api, JsonNode dashboard, long started) throws Exception {
        long end = System.currentTimeMillis() / 1000;
        ObjectNode out = json.createObjectNode();
        ArrayNode panels = out.putArray("panels");
        for (JsonNode panel : dashboard.path("panels")) {
            if (!panel.path("type").asText().equals("timeseries")) {
                continue;
            }
            ObjectNode drawn = panels.addObject();
            drawn.put("title", panel.path("title").asText());
            drawn.put("unit", panel.path("fieldConfig").path("defaults").path("unit").asText());
            ArrayNode series = drawn.putArray("series");
            for (JsonNode target : panel.path("targets")) {
                String expr = target.path("expr").asText().replace("$__rate_interval", "15s")
                        .replace("$partitioned", ".*").replace("$name", ".*");
                JsonNode answer = get(api, "/api/v1/query_range?query=" + URLEncoder.encode(expr,
                        StandardCharsets.UTF_8) + "&start=" + started + "&end=" + end + "&step=1");
                for (JsonNode result : answer.path("data").path("result")) {
                    String legend = target.path("legendFormat").asText();
                    Matcher m = LEGEND_LABEL.matcher(legend);
                    StringBuilder name = new StringBuilder();
                    while (m.find()) {
                        m.appendReplacement(name, Matcher.quoteReplacement(result.path("metric").path(m.group(1))
                                .asText()));
                    }
                    m.appendTail(name);
                    ObjectNode line = series.addObject();
                    line.put("legend", name.toString());
                    line.set("values", result.path("values"));
                }
            }
        }
        json.writerWithDefaultPrettyPrinter().writeValue(Path.of("target", "dashboard-snapshot.json").toFile(), out);
    }

    private static RunningApp start() {
        List<String> properties = new ArrayList<>(SheddingTestApp.BASE);
        properties.addAll(List.of("bulwark.bulkheads.api.max-concurrency=2", "bulwark.bulkheads.api.max-queue=2",
                "bulwark.bulkheads.other.max-concurrency=1", "bulwark.bulkheads.other.max-queue=1",
                "bulwark.bulkheads.other.max-wait=" + MAX_WAIT.toMillis() + "ms",
                "bulwark.bulkheads.tenant.max-concurrency=1",
                "bulwark.shedding.routes[0].pattern=/api/**", "bulwark.shedding.routes[0].bulkhead=api",
                "bulwark.shedding.routes[1].pattern=/other/**", "bulwark.shedding.routes[1].bulkhead=other",
                "bulwark.shedding.routes[2].pattern=/tenants/{tenant}/**",
                "bulwark.shedding.routes[2].bulkhead=tenant",
                "bulwark.shedding.routes[2].key.path-variable=tenant",
                "bulwark.shedding.routes[2].key.max-partitions=1"));
        return new RunningApp(new SpringApplicationBuilder(SheddingTestApp.class, AdaptiveBulkhead.class)
                .web(WebApplicationType.SERVLET).properties(properties.toArray(String[]::new))
                // An argument, so that it wins over the test application.yml's exposure (defaults would not).
                .run("--management.endpoints.web.exposure.include=prometheus"));
    }

    /**
     * Completed calls (for the execution times), a wait that times out and one admitted near the max wait, then the
     * "api" bulkhead full (2 in flight, 2 queued) and the tenant table's one partition in use while new calls keep
     * coming: refused with rejected.queue_full and rejected.partition_limit ten times a second, until the test ends.
     */
    private static void drive(RunningApp app, ScheduledExecutorService load) throws Exception {
        for (int i = 0; i < 20; i++) {
            assertThat(app.get("/api/now").get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        }
        Bulkhead adaptive = app.bulkhead("adaptive");
        for (int i = 0; i < 20; i++) {
            adaptive.call(() -> "done");
        }

        Bulkhead other = app.bulkhead("other");
        app.get("/other/hold/o1");
        await().atMost(Duration.ofSeconds(10)).until(() -> other.executingCount() == 1);
        CompletableFuture<HttpResponse<String>> timedOut = app.get("/other/hold/o2");
        assertThat(timedOut.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(503);
        CompletableFuture<HttpResponse<String>> late = app.get("/other/hold/o3");
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5)).until(() -> other.queuedCount() == 1);
        // Not for ordering: o3 must have waited at least 85 % of the max wait (measured from when the test saw it
        // queued, so its real wait is longer) and be admitted before the max wait ends.
        Thread.sleep(MAX_WAIT.toMillis() * 85 / 100);
        app.gate().release("o1");
        await().atMost(Duration.ofSeconds(10)).until(() -> other.queuedCount() == 0);
        assertThat(other.executingCount()).as("o3 admitted before the max wait").isEqualTo(1);
        app.gate().release("o3");
        assertThat(late.get(10, TimeUnit.SECONDS).statusCode()).as("o3 admitted before the max wait").isEqualTo(200);

        Bulkhead api = app.bulkhead("api");
        for (String id : List.of("h1", "h2", "h3", "h4")) {
            app.get("/api/hold/" + id);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> api.executingCount() == 2 && api.queuedCount() == 2);
        int entered = app.gate().entered();
        app.get("/tenants/a/hold/t1");
        await().atMost(Duration.ofSeconds(10)).until(() -> app.gate().entered() == entered + 1);
        load.scheduleAtFixedRate(() -> {
            app.get("/api/now");
            app.get("/tenants/b/hold/t2");
        }, 0, 100, TimeUnit.MILLISECONDS);
    }

    /** What is wrong with the dashboard's and the rules' expressions now; empty when all is well. */
    private List<String> problems(String api, JsonNode dashboard) throws Exception {
        List<String> problems = new ArrayList<>();
        for (JsonNode target : get(api, "/api/v1/targets").path("data").path("activeTargets")) {
            if (!target.path("health").asText().equals("up")) {
                problems.add("scrape of " + target.path("scrapeUrl").asText() + ": " + target.path("health").asText()
                        + " " + target.path("lastError").asText());
            }
        }
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            Matcher m = LABEL_VALUES.matcher(variable.path("definition").asText());
            if (m.matches()) {
                expect(api, m.group(1), Set.of(m.group(2)), "variable " + variable.path("name").asText(), problems);
            }
        }
        for (JsonNode panel : dashboard.path("panels")) {
            for (JsonNode target : panel.path("targets")) {
                String expr = target.path("expr").asText().replace("$__rate_interval", "15s")
                        .replace("$partitioned", ".*").replace("$name", ".*");
                expect(api, expr, labels(LEGEND_LABEL, target.path("legendFormat").asText()),
                        "panel '" + panel.path("title").asText() + "' " + target.path("refId").asText(), problems);
            }
        }
        JsonNode groups = get(api, "/api/v1/rules?type=alert").path("data").path("groups");
        Set<String> firing = new LinkedHashSet<>();
        for (JsonNode alert : get(api, "/api/v1/alerts").path("data").path("alerts")) {
            if (alert.path("state").asText().equals("firing")) {
                firing.add(alert.path("labels").path("alertname").asText());
            }
        }
        int rules = 0;
        for (JsonNode group : groups) {
            for (JsonNode rule : group.path("rules")) {
                rules++;
                String name = rule.path("name").asText();
                if (!rule.path("health").asText().equals("ok")) {
                    problems.add("rule " + name + " health " + rule.path("health") + " " + rule.path("lastError"));
                }
                expect(api, rule.path("query").asText(), labels(ANNOTATION_LABEL, rule.path("annotations").toString()),
                        "rule " + name, problems);
                if (!firing.contains(name)) {
                    problems.add("alert " + name + " is not firing (" + rule.path("state").asText() + ")");
                }
            }
        }
        if (rules != 4) {
            problems.add("Prometheus loaded " + rules + " alerting rules, not 4");
        }
        return problems;
    }

    private void expect(String api, String expr, Set<String> labels, String what, List<String> problems)
            throws Exception {
        JsonNode result = query(api, expr);
        if (result.isEmpty()) {
            problems.add(what + " returns no data: " + expr);
        }
        for (JsonNode series : result) {
            for (String label : labels) {
                if (!series.path("metric").has(label)) {
                    problems.add(what + " returns a series without the label " + label + ": " + series.path("metric"));
                }
            }
        }
    }

    private static Set<String> labels(Pattern pattern, String text) {
        Set<String> labels = new LinkedHashSet<>();
        Matcher m = pattern.matcher(text);
        while (m.find()) {
            labels.add(m.group(1));
        }
        return labels;
    }

    /** The value of each series of an instant query, keyed by the given labels' values joined by a space. */
    private Map<String, Double> values(String api, String expr, String... labels) throws Exception {
        Map<String, Double> values = new LinkedHashMap<>();
        for (JsonNode series : query(api, expr)) {
            List<String> key = new ArrayList<>();
            for (String label : labels) {
                key.add(series.path("metric").path(label).asText());
            }
            values.put(String.join(" ", key), series.path("value").path(1).asDouble());
        }
        return values;
    }

    private JsonNode query(String api, String expr) throws Exception {
        JsonNode answer = get(api, "/api/v1/query?query=" + URLEncoder.encode(expr, StandardCharsets.UTF_8));
        assertThat(answer.path("status").asText()).as("%s: %s", expr, answer).isEqualTo("success");
        return answer.path("data").path("result");
    }

    private JsonNode get(String api, String path) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(api + path))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        return json.readTree(response.body());
    }

    /**
     * Starts Prometheus on a loopback port, scraping the application's /actuator/prometheus and evaluating the
     * shipped rules (their {@code for} shortened to 2 s) every second, and waits until it is ready.
     */
    private Process startPrometheus(Path prometheus, Path promtool, Path dir, int appPort, int port) throws Exception {
        String rules = Files.readString(DASHBOARDS.resolve("bulwark-alerts.yml"));
        String testRules = rules.replaceAll("(?m)^(\\s+for:) \\S+$", "$1 2s");
        assertThat(testRules).doesNotContain("for: 10m", "for: 5m");
        Files.writeString(dir.resolve("rules.yml"), testRules);
        Files.writeString(dir.resolve("prometheus.yml"), String.join("\n",
                "global:",
                "  scrape_interval: 1s",
                "  evaluation_interval: 1s",
                "rule_files:",
                "  - rules.yml",
                "scrape_configs:",
                "  - job_name: bulwark-app",
                "    metrics_path: /actuator/prometheus",
                "    static_configs:",
                "      - targets: ['127.0.0.1:" + appPort + "']",
                ""));
        if (promtool != null) {
            assertThat(run(promtool, "check", "config", dir.resolve("prometheus.yml").toString()))
                    .contains("SUCCESS");
        }
        File log = dir.resolve("prometheus.log").toFile();
        Process process = new ProcessBuilder(prometheus.toString(),
                "--config.file=" + dir.resolve("prometheus.yml"), "--storage.tsdb.path=" + dir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port)
                .redirectErrorStream(true).redirectOutput(log).start();
        String ready = "http://127.0.0.1:" + port + "/-/ready";
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                .until(() -> {
                    assertThat(process.isAlive()).as("prometheus exited: %s", Files.readString(log.toPath()))
                            .isTrue();
                    return http.send(HttpRequest.newBuilder(URI.create(ready)).build(),
                            HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
                });
        return process;
    }

    private static String run(Path program, String... arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(program.toString()));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as("%s: %s", command, output).isZero();
        return output;
    }

    private static Path onPath(String program) {
        for (String directory : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path candidate = Path.of(directory, program);
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
