package dev.bulwark.benchmarks.report;

import static dev.bulwark.benchmarks.report.ReportFixtures.allPass;
import static dev.bulwark.benchmarks.report.ReportFixtures.failing;
import static dev.bulwark.benchmarks.report.ReportFixtures.measured;
import static dev.bulwark.benchmarks.report.ReportFixtures.results;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bulwark.benchmarks.conformance.Check;
import dev.bulwark.benchmarks.subjects.Subjects;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line the run script drives: files in, results file and README block out. */
class ReportTest {

    @TempDir
    Path directory;

    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
    private final Report report = new Report(new PrintStream(printed, true, StandardCharsets.UTF_8));

    @Test
    void assemblesJmhOutputAndVerdictsIntoAFileNamedByDateAndJdk() throws Exception {
        Path jmh = directory.resolve("jmh.json");
        Files.writeString(jmh, "[{\"benchmark\": \"dev.bulwark.benchmarks.UncontendedCallBenchmark.call\","
                + "\"threads\": 1, \"jdkVersion\": \"25.0.1\", \"vmName\": \"OpenJDK 64-Bit Server VM\","
                + "\"vmVersion\": \"25.0.1+8-LTS\", \"params\": {\"subject\": \"bulwark\"},"
                + "\"primaryMetric\": {\"score\": 9.5, \"scoreError\": 0.5, \"scoreUnit\": \"ns/op\"},"
                + "\"secondaryMetrics\": {\"gc.alloc.rate.norm\": {\"score\": 0.0, \"scoreUnit\": \"B/op\"}}}]");
        Path conformance = directory.resolve("conformance.json");
        new ObjectMapper().writeValue(conformance.toFile(), new Report.ConformanceResults(
                Map.of(Subjects.BULWARK, allPass(), Subjects.FAILSAFE, failing(Check.SYNC_LIMIT, "leaks")),
                Map.of(Subjects.BULWARK, 0)));
        Path out = directory.resolve("results");

        report.run(Arguments.parse("assemble", "--jmh", jmh.toString(), "--conformance", conformance.toString(),
                "--profile", "quick", "--command", "bulwark-benchmarks/run --quick", "--out-dir", out.toString()));

        List<Path> written;
        try (var files = Files.list(out)) {
            written = files.toList();
        }
        assertThat(written).singleElement().satisfies(file ->
                assertThat(file.getFileName().toString()).matches("\\d{4}-\\d{2}-\\d{2}-jdk25\\.json"));
        ResultsFile results = report.read(written.get(0));
        assertThat(results.jdk().version()).isEqualTo("25.0.1");
        assertThat(results.jdk().vm()).isEqualTo("OpenJDK 64-Bit Server VM 25.0.1+8-LTS");
        assertThat(results.measurements()).singleElement().satisfies(m -> assertThat(m.score()).isEqualTo(9.5));
        assertThat(results.conformance().get(Subjects.FAILSAFE).get(Check.SYNC_LIMIT).detail()).isEqualTo("leaks");
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("| uncontended sync call, 1 thread |")
                .contains("NOT MEASURED, fails conformance: SYNC_LIMIT — leaks");
    }

    @Test
    void aResultsFileSurvivesTheRoundTripIncludingMissingErrors() throws Exception {
        ResultsFile original = results(List.of(measured(Scenario.ASYNC, "bulwark", 12.0, Double.NaN, Double.NaN)),
                Map.of("bulwark", allPass()));
        Path file = directory.resolve("2025-01-02-jdk17.json");
        new ObjectMapper().writeValue(file.toFile(), original);

        assertThat(report.read(file)).isEqualTo(original);
    }

    @Test
    void theReadmeBlockTakesTheLatestResultsOfEachJdkAndLeavesTheRestAlone() throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        Path results = Files.createDirectory(directory.resolve("results"));
        ResultsFile older = results(List.of(measured(Scenario.UNCONTENDED, "bulwark", 99, 1, 0)), Map.of());
        ResultsFile newer = results(List.of(measured(Scenario.UNCONTENDED, "bulwark", 11, 1, 0)), Map.of());
        mapper.writeValue(results.resolve("2025-01-01-jdk17.json").toFile(), older);
        mapper.writeValue(results.resolve("2025-01-02-jdk17.json").toFile(), newer);
        Path readme = directory.resolve("README.md");
        Files.writeString(readme, "# Title\n\n## Performance\n\nBefore.\n\n" + ReadmeSection.START + "\nold\n"
                + ReadmeSection.END + "\n\nAfter.\n");

        report.run(Arguments.parse("readme", "--readme", readme.toString(), "--results-dir", results.toString()));

        String text = Files.readString(readme);
        assertThat(text).startsWith("# Title\n\n## Performance\n\nBefore.\n\n" + ReadmeSection.START + "\n");
        assertThat(text).endsWith(ReadmeSection.END + "\n\nAfter.\n");
        assertThat(text).doesNotContain("\nold\n").contains("### JDK 17").contains("| 11.0 ns |")
                .doesNotContain("| 99.0 ns |").contains("Targets of issue #4");
    }

    @Test
    void withoutResultsTheReadmeBlockSaysSo() {
        String block = ReadmeSection.render(List.of());

        assertThat(block).contains("No results are committed yet");
    }

    @Test
    void aReadmeWithoutMarkersIsRefused() {
        assertThatThrownBy(() -> ReadmeSection.replace("# Title\n", "x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(ReadmeSection.START);
    }

    @Test
    void unknownCommandsAndMissingOptionsAreNamed() {
        assertThatThrownBy(() -> report.run(Arguments.parse("plot")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'plot'");
        assertThatThrownBy(() -> report.run(Arguments.parse("assemble", "--profile", "quick")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--jmh");
        assertThatThrownBy(() -> Arguments.parse("table", "--out"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--out needs a value");
    }

    @Test
    void bulwarksRefusalCarriesNoStackTraceAndResilience4jsDoesByDefault() {
        assertThat(Report.refusalStackFrames(Subjects.BULWARK)).isZero();
        assertThat(Report.refusalStackFrames(Subjects.RESILIENCE4J_NOSTACK)).isZero();
        assertThat(Report.refusalStackFrames(Subjects.RESILIENCE4J)).isPositive();
    }
}
