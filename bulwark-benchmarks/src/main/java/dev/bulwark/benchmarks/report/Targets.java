package dev.bulwark.benchmarks.report;

import dev.bulwark.benchmarks.conformance.Check;
import dev.bulwark.benchmarks.conformance.Verdict;
import dev.bulwark.benchmarks.subjects.Subjects;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Judges a run against the targets of issue #4, each as a ratio measured side by side in the same run. Scores are
 * compared as they are: a difference within the error columns is reported as met or missed all the same, and the
 * noise sentence under the table tells the reader how far to trust it.
 */
public final class Targets {

    /**
     * The allocation bound of the async fast path: a {@code CompletableFuture} (24 bytes with compressed class
     * pointers and oops) plus one small object (at most 24 bytes).
     */
    static final double ASYNC_BYTES_BOUND = 48;

    private Targets() {
    }

    /**
     * Judges every target.
     *
     * @param results a run's results
     * @return the targets in the order
     */
    public static List<Target> judge(ResultsFile results) {
        List<Target> targets = new ArrayList<>();
        Optional<Measurement> uncontended = score(results, Scenario.UNCONTENDED, Subjects.BULWARK);

        targets.add(atMost("uncontended sync call ≤ 1.3× the raw semaphore",
                uncontended, score(results, Scenario.UNCONTENDED, Subjects.SEMAPHORE), 1.3, "semaphore"));
        targets.add(uncontended.filter(m -> !Double.isNaN(m.bytesPerOperation()))
                .map(m -> new Target("uncontended sync call allocates 0 B/op",
                        m.bytesPerOperation() < 0.5 ? Target.Status.MET : Target.Status.MISSED,
                        ComparisonTable.bytes(m.bytesPerOperation()) + " B/op"))
                .orElse(unknown("uncontended sync call allocates 0 B/op")));
        targets.add(atMost("uncontended sync call not slower than Resilience4j",
                uncontended, score(results, Scenario.UNCONTENDED, Subjects.RESILIENCE4J), 1.0, "resilience4j"));

        Integer frames = results.refusalStackFrames().get(Subjects.BULWARK);
        targets.add(frames == null ? unknown("rejection carries no stack trace")
                : new Target("rejection carries no stack trace", frames == 0 ? Target.Status.MET
                        : Target.Status.MISSED, frames + " stack frames"));
        targets.add(atMost("rejection ≤ 1/10 of Resilience4j's cost with stack traces disabled",
                score(results, Scenario.REJECTION, Subjects.BULWARK),
                score(results, Scenario.REJECTION, Subjects.RESILIENCE4J_NOSTACK), 0.1, "resilience4j-nostack"));

        for (Scenario contended : List.of(Scenario.CONTENDED_2, Scenario.CONTENDED_4, Scenario.CONTENDED_8)) {
            targets.add(atMost(contended.title() + ": not slower than Resilience4j",
                    score(results, contended, Subjects.BULWARK), score(results, contended, Subjects.RESILIENCE4J),
                    1.0, "resilience4j"));
        }

        targets.add(verdict(results, "hand-off keeps strict FIFO (no barging)", Check.SYNC_FIFO));
        targets.add(atMost("hand-off within 2× of a fair Semaphore",
                score(results, Scenario.HAND_OFF, Subjects.BULWARK),
                score(results, Scenario.HAND_OFF, Subjects.SEMAPHORE_FAIR), 2.0, "semaphore-fair"));

        targets.add(verdict(results, "a waiting async call holds no thread", Check.ASYNC_WAIT));
        targets.add(score(results, Scenario.ASYNC, Subjects.BULWARK).filter(m -> !Double.isNaN(m.bytesPerOperation()))
                .map(m -> new Target("async fast path allocates no more than its CompletableFuture plus one small "
                        + "object (≤ " + (int) ASYNC_BYTES_BOUND + " B/op)",
                        m.bytesPerOperation() <= ASYNC_BYTES_BOUND ? Target.Status.MET : Target.Status.MISSED,
                        ComparisonTable.bytes(m.bytesPerOperation()) + " B/op"))
                .orElse(unknown("async fast path allocates no more than its CompletableFuture plus one small object")));
        return targets;
    }

    /**
     * Renders the judgements as a Markdown list.
     *
     * @param targets the judgements
     * @return one line per target, ending with a newline
     */
    public static String markdown(List<Target> targets) {
        StringBuilder out = new StringBuilder();
        for (Target target : targets) {
            out.append("- **").append(target.status()).append("** ").append(target.description()).append(": ")
                    .append(target.figure()).append('\n');
        }
        return out.toString();
    }

    private static Optional<Measurement> score(ResultsFile results, Scenario scenario, String subject) {
        return ComparisonTable.find(results, scenario, subject);
    }

    private static Target atMost(String description, Optional<Measurement> bulwark, Optional<Measurement> other,
                                 double maximumRatio, String otherName) {
        if (bulwark.isEmpty() || other.isEmpty() || !(other.get().score() > 0)) {
            return unknown(description);
        }
        double ratio = bulwark.get().score() / other.get().score();
        String figure = String.format(Locale.ROOT, "bulwark %s ± %s vs %s %s ± %s %s = %.2f×",
                ComparisonTable.time(bulwark.get().score()), ComparisonTable.time(bulwark.get().error()), otherName,
                ComparisonTable.time(other.get().score()), ComparisonTable.time(other.get().error()),
                other.get().unit(), ratio);
        return new Target(description, ratio <= maximumRatio ? Target.Status.MET : Target.Status.MISSED, figure);
    }

    private static Target verdict(ResultsFile results, String description, Check check) {
        Map<Check, Verdict> verdicts = results.conformance().get(Subjects.BULWARK);
        Verdict verdict = verdicts == null ? null : verdicts.get(check);
        if (verdict == null) {
            return unknown(description);
        }
        return new Target(description, verdict.passed() ? Target.Status.MET : Target.Status.MISSED,
                "conformance check " + check.name() + ": " + verdict.detail());
    }

    private static Target unknown(String description) {
        return new Target(description, Target.Status.UNKNOWN, "not measured in this run");
    }
}
