package dev.bulwark.benchmarks.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.bulwark.benchmarks.conformance.Check;
import dev.bulwark.benchmarks.conformance.Conformance;
import dev.bulwark.benchmarks.conformance.Verdict;
import dev.bulwark.benchmarks.subjects.Subject;
import dev.bulwark.benchmarks.subjects.SubjectSpec;
import dev.bulwark.benchmarks.subjects.Subjects;
import dev.bulwark.benchmarks.subjects.Work;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The command line behind {@code bulwark-benchmarks/run}: checks conformance before the benchmarks, assembles JMH's
 * output into a results file, prints the comparison table and updates the generated block of docs/performance.md.
 *
 * <pre>
 * conformance --out FILE                       run every check on every subject, write the verdicts
 * assemble --jmh FILE... --conformance FILE --profile NAME --command TEXT --out-dir DIR
 *                                              write DIR/DATE-jdkN.json and print its table
 * table FILE                                   print the table of a results file
 * readme --readme docs/performance.md --results-dir DIR  put the latest results of each JDK into that page
 * </pre>
 */
public final class Report {

    private final ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private final PrintStream out;

    Report(PrintStream out) {
        this.out = out;
    }

    /**
     * Runs one command.
     *
     * @param args the command and its options; see the class description
     */
    public static void main(String[] args) {
        try {
            new Report(System.out).run(Arguments.parse(args));
        } catch (IllegalArgumentException | IOException failure) {
            System.err.println("report: " + failure.getMessage());
            System.exit(2);
        }
    }

    void run(Arguments arguments) throws IOException {
        switch (arguments.command()) {
            case "conformance":
                conformance(arguments.path("out"));
                break;
            case "assemble":
                assemble(arguments);
                break;
            case "table":
                out.print(render(read(arguments.positional())));
                break;
            case "readme":
                Path readme = arguments.path("readme");
                String updated = ReadmeSection.replace(Files.readString(readme, StandardCharsets.UTF_8),
                        ReadmeSection.render(latestPerJdk(arguments.path("results-dir"))));
                Files.writeString(readme, updated, StandardCharsets.UTF_8);
                out.println("Updated the Performance results in " + readme);
                break;
            default:
                throw new IllegalArgumentException("unknown command '" + arguments.command()
                        + "'; expected conformance, assemble, table or readme");
        }
    }

    private void conformance(Path target) throws IOException {
        Map<String, Map<Check, Verdict>> verdicts = new LinkedHashMap<>();
        Map<String, Integer> frames = new LinkedHashMap<>();
        for (String subject : Subjects.NAMES) {
            Map<Check, Verdict> subjectVerdicts = Conformance.checkAll(subject);
            verdicts.put(subject, subjectVerdicts);
            frames.put(subject, refusalStackFrames(subject));
            subjectVerdicts.forEach((check, verdict) -> out.printf("conformance %-21s %-11s %s%n", subject,
                    check, verdict.passed() ? "pass" : "FAIL: " + verdict.detail()));
        }
        Files.createDirectories(target.toAbsolutePath().getParent());
        mapper.writeValue(target.toFile(), new ConformanceResults(verdicts, frames));
    }

    /** How many stack frames the refusal of a full bulkhead carries: filling them is most of a refusal's cost. */
    static int refusalStackFrames(String subject) {
        Subject bulkhead = Subjects.create(subject, SubjectSpec.refusing(1));
        try (Subject.Slot ignored = bulkhead.occupy()) {
            Object refusal = bulkhead.call(Work.returningResult());
            return refusal instanceof Throwable ? ((Throwable) refusal).getStackTrace().length : 0;
        }
    }

    private void assemble(Arguments arguments) throws IOException {
        JmhJson jmh = new JmhJson(mapper);
        List<Measurement> measurements = new ArrayList<>();
        JsonNode first = null;
        for (Path file : arguments.paths("jmh")) {
            measurements.addAll(jmh.read(file));
            JsonNode tree = mapper.readTree(file.toFile());
            if (first == null && tree.size() > 0) {
                first = tree.get(0);
            }
        }
        ConformanceResults conformance =
                mapper.readValue(arguments.path("conformance").toFile(), ConformanceResults.class);
        ResultsFile.Jdk jdk = first == null
                ? new ResultsFile.Jdk(System.getProperty("java.version"),
                        System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version"))
                : new ResultsFile.Jdk(first.path("jdkVersion").asText(),
                        first.path("vmName").asText() + " " + first.path("vmVersion").asText());
        ResultsFile results = new ResultsFile(LocalDate.now().toString(), jdk, MachineProbe.probe(),
                arguments.value("profile"), arguments.value("command"), conformance.conformance(),
                conformance.refusalStackFrames(), measurements);
        Path directory = arguments.path("out-dir");
        Files.createDirectories(directory);
        Path target = directory.resolve(results.date() + "-jdk" + jdk.feature() + ".json");
        mapper.writeValue(target.toFile(), results);
        out.print(render(results));
        out.println();
        out.println("Results written to " + target);
    }

    ResultsFile read(Path file) throws IOException {
        return mapper.readValue(file.toFile(), ResultsFile.class);
    }

    private List<ResultsFile> latestPerJdk(Path directory) throws IOException {
        Map<String, ResultsFile> latest = new LinkedHashMap<>();
        if (Files.isDirectory(directory)) {
            List<Path> files = new ArrayList<>();
            try (var listing = Files.list(directory)) {
                listing.filter(p -> p.getFileName().toString().matches("\\d{4}-\\d{2}-\\d{2}-jdk\\d+\\.json"))
                        .sorted().forEach(files::add);
            }
            for (Path file : files) {
                ResultsFile results = read(file);
                latest.put(results.jdk().feature(), results);
            }
        }
        List<ResultsFile> ordered = new ArrayList<>(latest.values());
        ordered.sort((a, b) -> Integer.compare(Integer.parseInt(a.jdk().feature()),
                Integer.parseInt(b.jdk().feature())));
        return ordered;
    }

    static String render(ResultsFile results) {
        return "JDK " + results.jdk().version() + " (" + results.jdk().vm() + "), " + results.machine().describe()
                + ", profile " + results.profile() + ", " + results.date() + "\n\n" + ComparisonTable.markdown(results)
                + "\nTargets (issue #4):\n\n" + Targets.markdown(Targets.judge(results));
    }

    /**
     * What the {@code conformance} command writes.
     *
     * @param conformance each subject's verdict for each check
     * @param refusalStackFrames the stack frames each subject's refusal carries
     */
    record ConformanceResults(Map<String, Map<Check, Verdict>> conformance, Map<String, Integer> refusalStackFrames) {
    }
}
