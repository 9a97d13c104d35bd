package dev.bulwark.benchmarks.report;

import dev.bulwark.benchmarks.conformance.Check;
import dev.bulwark.benchmarks.conformance.Verdict;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Results files made by hand, with figures chosen so that every ratio and verdict is known in advance. */
final class ReportFixtures {

    private ReportFixtures() {
    }

    static Measurement measured(Scenario scenario, String subject, double score, double error, double bytes) {
        return new Measurement(scenario.benchmark(), subject, 1, score, error, "ns/op", bytes);
    }

    static Map<Check, Verdict> allPass() {
        Map<Check, Verdict> verdicts = new EnumMap<>(Check.class);
        for (Check check : Check.values()) {
            verdicts.put(check, Verdict.pass());
        }
        return verdicts;
    }

    static Map<Check, Verdict> failing(Check failed, String detail) {
        Map<Check, Verdict> verdicts = allPass();
        verdicts.put(failed, Verdict.fail(detail));
        return verdicts;
    }

    static ResultsFile results(List<Measurement> measurements, Map<String, Map<Check, Verdict>> conformance) {
        Map<String, Integer> frames = new LinkedHashMap<>();
        frames.put("bulwark", 0);
        frames.put("resilience4j", 27);
        return new ResultsFile("2025-01-02", new ResultsFile.Jdk("17.0.15", "OpenJDK 64-Bit Server VM 17.0.15"),
                new ResultsFile.Machine("Test CPU", 2, "24 GiB", "Linux"), "quick", "bulwark-benchmarks/run --quick",
                conformance, frames, measurements);
    }
}
