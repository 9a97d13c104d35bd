package dev.bulwark.benchmarks.conformance;

import dev.bulwark.benchmarks.subjects.SubjectSpec;
import dev.bulwark.benchmarks.subjects.Subjects;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The gate every benchmark passes in its setup: {@link #require(String, Check...)} runs the checks the scenario
 * depends on against a fresh bulkhead of the subject and refuses to measure a subject that fails one.
 */
public final class Conformance {

    private Conformance() {
    }

    /**
     * Runs every check on the named subject.
     *
     * @param subject one of {@link Subjects#NAMES}
     * @return the verdict of each check, in {@link Check} order
     * @throws IllegalArgumentException when {@code subject} is unknown
     */
    public static Map<Check, Verdict> checkAll(String subject) {
        Objects.requireNonNull(subject, "subject");
        Subjects.create(subject, SubjectSpec.refusing(1)); // an unknown name fails here, not as a verdict
        ConformanceCheck checker = new ConformanceCheck(spec -> Subjects.create(subject, spec));
        Map<Check, Verdict> verdicts = new EnumMap<>(Check.class);
        for (Check check : Check.values()) {
            verdicts.put(check, checker.run(check));
        }
        return verdicts;
    }

    /**
     * Runs the given checks on a fresh bulkhead of the subject and returns normally only when all pass.
     *
     * @param subject one of {@link Subjects#NAMES}
     * @param checks what the calling scenario relies on
     * @throws NonConformingSubjectException naming every failed check and what was observed
     * @throws IllegalArgumentException when {@code subject} is unknown
     */
    public static void require(String subject, Check... checks) {
        Objects.requireNonNull(subject, "subject");
        ConformanceCheck checker = new ConformanceCheck(spec -> Subjects.create(subject, spec));
        List<String> failures = new ArrayList<>();
        for (Check check : checks) {
            Verdict verdict = checker.run(check);
            if (!verdict.passed()) {
                failures.add(check.name() + " (" + check.description() + "): " + verdict.detail());
            }
        }
        if (!failures.isEmpty()) {
            throw new NonConformingSubjectException("NOT MEASURED: subject '" + subject
                    + "' fails the conformance check: " + String.join("; ", failures));
        }
    }
}
