package dev.bulwark.benchmarks.report;

import dev.bulwark.benchmarks.conformance.Check;
import dev.bulwark.benchmarks.conformance.Verdict;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Everything one run of {@code bulwark-benchmarks/run} produced, as committed under
 * {@code bulwark-benchmarks/results/}: where and how it ran, each subject's conformance verdicts, and the
 * measurements. Immutable; written and read as JSON.
 *
 * @param date the day of the run, ISO-8601
 * @param jdk the JVM that ran the benchmarks, as JMH reported it
 * @param machine the machine
 * @param profile the run profile ({@code smoke}, {@code quick} or {@code full})
 * @param command the command that produced the file
 * @param conformance each subject's verdict for each check
 * @param refusalStackFrames for each subject, how many stack frames its refusal carries (0: none were filled)
 * @param measurements the measurements
 */
public record ResultsFile(String date, Jdk jdk, Machine machine, String profile, String command,
                          Map<String, Map<Check, Verdict>> conformance, Map<String, Integer> refusalStackFrames,
                          List<Measurement> measurements) {

    /**
     * Checks the components and copies the collections.
     *
     * @throws NullPointerException when a component is {@code null}
     */
    public ResultsFile {
        Objects.requireNonNull(date, "date");
        Objects.requireNonNull(jdk, "jdk");
        Objects.requireNonNull(machine, "machine");
        Objects.requireNonNull(profile, "profile");
        Objects.requireNonNull(command, "command");
        conformance = Map.copyOf(Objects.requireNonNull(conformance, "conformance"));
        refusalStackFrames = Map.copyOf(Objects.requireNonNull(refusalStackFrames, "refusalStackFrames"));
        measurements = List.copyOf(Objects.requireNonNull(measurements, "measurements"));
    }

    /**
     * The JVM of a run.
     *
     * @param version the JDK version, such as {@code 17.0.15}
     * @param vm the VM name and version
     */
    public record Jdk(String version, String vm) {

        /**
         * Returns the feature release, used in file names and headings.
         *
         * @return such as {@code 17}
         */
        public String feature() {
            int end = 0;
            while (end < version.length() && Character.isDigit(version.charAt(end))) {
                end++;
            }
            return end == 0 ? version : version.substring(0, end);
        }
    }

    /**
     * The machine of a run.
     *
     * @param cpu the processor model
     * @param cores the processors available to the JVM
     * @param memory the physical memory, such as {@code 24 GiB}
     * @param os the operating system and kernel
     */
    public record Machine(String cpu, int cores, String memory, String os) {

        /**
         * Describes the machine in one line.
         *
         * @return such as {@code 2 cores (AMD EPYC 7B13), 24 GiB, Linux 6.1}
         */
        public String describe() {
            return cores + " cores (" + cpu + "), " + memory + ", " + os;
        }
    }
}
