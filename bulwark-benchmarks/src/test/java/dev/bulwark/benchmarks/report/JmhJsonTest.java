package dev.bulwark.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Reading JMH's JSON as JMH 1.37 writes it with -rf json and -prof gc. */
class JmhJsonTest {

    private static final String TWO_BENCHMARKS = "[\n"
            + "  {\"jmhVersion\": \"1.37\", \"benchmark\": \"dev.bulwark.benchmarks.UncontendedCallBenchmark.call\",\n"
            + "   \"mode\": \"avgt\", \"threads\": 1, \"forks\": 3, \"jdkVersion\": \"17.0.15\",\n"
            + "   \"params\": {\"subject\": \"bulwark\"},\n"
            + "   \"primaryMetric\": {\"score\": 8.123, \"scoreError\": 0.214, \"scoreUnit\": \"ns/op\"},\n"
            + "   \"secondaryMetrics\": {\n"
            + "     \"gc.alloc.rate\": {\"score\": 0.001, \"scoreError\": 0.002, \"scoreUnit\": \"MB/sec\"},\n"
            + "     \"gc.alloc.rate.norm\": {\"score\": 0.0000123, \"scoreError\": 0.0001, \"scoreUnit\": "
            + "\"B/op\"}}},\n"
            + "  {\"benchmark\": \"dev.bulwark.benchmarks.ContendedCallBenchmark.threads4\", \"threads\": 4,\n"
            + "   \"params\": {\"subject\": \"semaphore\"},\n"
            + "   \"primaryMetric\": {\"score\": 120.5, \"scoreError\": \"NaN\", \"scoreUnit\": \"ns/op\"},\n"
            + "   \"secondaryMetrics\": {}}\n"
            + "]";

    @Test
    void readsScoreErrorThreadsSubjectAndAllocation() throws IOException {
        List<Measurement> measurements = JmhJson.parse(new ObjectMapper().readTree(TWO_BENCHMARKS), "test");

        assertThat(measurements).containsExactly(
                new Measurement("UncontendedCallBenchmark.call", "bulwark", 1, 8.123, 0.214, "ns/op", 0.0000123),
                new Measurement("ContendedCallBenchmark.threads4", "semaphore", 4, 120.5, Double.NaN, "ns/op",
                        Double.NaN));
    }

    @Test
    void somethingElseIsRefusedWithItsName() {
        assertThatThrownBy(() -> JmhJson.parse(new ObjectMapper().readTree("{\"benchmark\": 1}"), "results.json"))
                .isInstanceOf(IOException.class).hasMessageContaining("results.json");
        assertThatThrownBy(() -> JmhJson.parse(new ObjectMapper().readTree("[{\"benchmark\": \"a.B.c\"}]"), "r.json"))
                .isInstanceOf(IOException.class).hasMessageContaining("a.B.c");
    }

    @Test
    void shortNamesKeepTheClassAndTheMethod() {
        assertThat(JmhJson.shortName("dev.bulwark.benchmarks.RejectionBenchmark.refused"))
                .isEqualTo("RejectionBenchmark.refused");
        assertThat(JmhJson.shortName("Plain.method")).isEqualTo("Plain.method");
    }
}
