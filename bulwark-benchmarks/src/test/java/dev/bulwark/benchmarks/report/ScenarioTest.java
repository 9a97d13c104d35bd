package dev.bulwark.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.benchmarks.subjects.Subjects;
import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Benchmark;

/** The table's scenarios point at benchmarks that exist and at subjects that exist. */
class ScenarioTest {

    @Test
    void everyScenarioNamesABenchmarkMethodAndKnownSubjectsIncludingItsFloorAndBulwark() throws Exception {
        for (Scenario scenario : Scenario.values()) {
            String[] parts = scenario.benchmark().split("\\.");
            Class<?> type = Class.forName("dev.bulwark.benchmarks." + parts[0]);
            Method method = null;
            for (Method candidate : type.getMethods()) {
                if (candidate.getName().equals(parts[1])) {
                    method = candidate;
                }
            }
            assertThat(method).as(scenario.benchmark()).isNotNull();
            assertThat(method.isAnnotationPresent(Benchmark.class)).as(scenario.benchmark()).isTrue();
            assertThat(Subjects.NAMES).as(scenario.name()).containsAll(scenario.subjects());
            assertThat(scenario.subjects()).as(scenario.name()).contains(Subjects.BULWARK);
            scenario.floor().ifPresent(floor -> assertThat(scenario.subjects()).as(scenario.name()).contains(floor));
            assertThat(scenario.gates()).as(scenario.name()).isNotEmpty();
        }
    }
}
