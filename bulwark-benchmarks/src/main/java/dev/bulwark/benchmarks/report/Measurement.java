package dev.bulwark.benchmarks.report;

import java.util.Objects;

/**
 * One benchmark's result for one subject, as JMH reported it. Immutable.
 *
 * @param benchmark the benchmark class's simple name and method, such as {@code UncontendedCallBenchmark.call}
 * @param subject the {@code subject} parameter
 * @param threads how many threads ran the benchmark
 * @param score the mean time per operation
 * @param error the half-width of JMH's 99.9% confidence interval, {@code NaN} when JMH could not compute one
 *     (a single iteration)
 * @param unit the unit of {@code score} and {@code error}, such as {@code ns/op}
 * @param bytesPerOperation bytes allocated per operation ({@code -prof gc}'s {@code gc.alloc.rate.norm}), or
 *     {@code NaN} when the run had no allocation profiler
 */
public record Measurement(String benchmark, String subject, int threads, double score, double error, String unit,
                          double bytesPerOperation) {

    /**
     * Checks the components.
     *
     * @throws NullPointerException when a string component is {@code null}
     */
    public Measurement {
        Objects.requireNonNull(benchmark, "benchmark");
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(unit, "unit");
    }

    /**
     * Returns the error relative to the score.
     *
     * @return {@code error / score}, or {@code NaN} when either is unknown
     */
    public double relativeError() {
        return score > 0 ? error / score : Double.NaN;
    }
}
