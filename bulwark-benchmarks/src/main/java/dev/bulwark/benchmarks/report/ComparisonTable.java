package dev.bulwark.benchmarks.report;

import dev.bulwark.benchmarks.conformance.Check;
import dev.bulwark.benchmarks.conformance.Verdict;
import dev.bulwark.benchmarks.subjects.Subjects;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Turns a {@link ResultsFile} into the comparison table: every scenario, every subject its benchmark names, the
 * score with its error, bytes per operation, and the ratio to the scenario's floor and to Bulwark. A subject that
 * failed a conformance check the scenario depends on is listed as not measured, with the reason, never left out.
 */
public final class ComparisonTable {

    private ComparisonTable() {
    }

    /**
     * Builds the rows, scenario by scenario.
     *
     * @param results a run's results
     * @return the rows, in {@link Scenario} order and each benchmark's subject order
     */
    public static List<Row> rows(ResultsFile results) {
        List<Row> rows = new ArrayList<>();
        for (Scenario scenario : Scenario.values()) {
            Optional<Measurement> floor = scenario.floor().flatMap(name -> find(results, scenario, name));
            Optional<Measurement> bulwark = find(results, scenario, Subjects.BULWARK);
            boolean ran = results.measurements().stream().anyMatch(m -> m.benchmark().equals(scenario.benchmark()));
            for (String subject : scenario.subjects()) {
                Optional<Measurement> measurement = find(results, scenario, subject);
                String note = ran ? note(results, scenario, subject, measurement.isPresent()) : "not run";
                double timesFloor = ratio(measurement, floor);
                double timesBulwark = ratio(measurement, bulwark);
                rows.add(new Row(scenario, subject, measurement, timesFloor, timesBulwark, note));
            }
        }
        return rows;
    }

    /**
     * Renders the table as Markdown, followed by a sentence on how noisy the figures are.
     *
     * @param results a run's results
     * @return the Markdown text, ending with a newline
     */
    public static String markdown(ResultsFile results) {
        List<Row> rows = rows(results);
        StringBuilder out = new StringBuilder();
        out.append("| scenario | subject | time/op | ± error | B/op | × floor | × bulwark | note |\n");
        out.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |\n");
        Scenario previous = null;
        for (Row row : rows) {
            String scenarioCell = row.scenario() == previous ? "" : row.scenario().title();
            previous = row.scenario();
            Optional<Measurement> m = row.measurement();
            out.append("| ").append(escape(scenarioCell))
                    .append(" | ").append(row.subject())
                    .append(" | ").append(m.map(x -> time(x.score()) + " " + unitWithoutOp(x.unit())).orElse("—"))
                    .append(" | ").append(m.map(x -> Double.isNaN(x.error()) ? "n/a" : time(x.error())).orElse("—"))
                    .append(" | ").append(m.map(x -> bytes(x.bytesPerOperation())).orElse("—"))
                    .append(" | ").append(times(row.timesFloor()))
                    .append(" | ").append(times(row.timesBulwark()))
                    .append(" | ").append(escape(row.note()))
                    .append(" |\n");
        }
        out.append('\n').append(noise(results)).append('\n');
        return out.toString();
    }

    /**
     * Says in one sentence how noisy the run was: the median and the largest relative error over the measured rows.
     *
     * @param results a run's results
     * @return the sentence
     */
    public static String noise(ResultsFile results) {
        List<Measurement> withError = new ArrayList<>();
        for (Measurement m : results.measurements()) {
            if (!Double.isNaN(m.relativeError())) {
                withError.add(m);
            }
        }
        if (withError.isEmpty()) {
            return "Noise: JMH computed no confidence interval (one measurement iteration), so these figures are a "
                    + "smoke test of the harness, not a measurement.";
        }
        withError.sort(Comparator.comparingDouble(Measurement::relativeError));
        double median = withError.get(withError.size() / 2).relativeError();
        Measurement worst = withError.get(withError.size() - 1);
        long noisy = withError.stream().filter(m -> m.relativeError() > 0.10).count();
        return String.format(Locale.ROOT, "Noise: the 99.9%% confidence interval is ±%.0f%% of the score for the "
                        + "median row and ±%.0f%% for the worst (%s, %s); %d of %d rows are noisier than ±10%%, so "
                        + "read differences smaller than the error columns as ties.", median * 100,
                worst.relativeError() * 100, worst.benchmark(), worst.subject(), noisy, withError.size());
    }

    static Optional<Measurement> find(ResultsFile results, Scenario scenario, String subject) {
        return results.measurements().stream()
                .filter(m -> m.benchmark().equals(scenario.benchmark()) && m.subject().equals(subject))
                .findFirst();
    }

    private static String note(ResultsFile results, Scenario scenario, String subject, boolean measured) {
        Map<Check, Verdict> verdicts = results.conformance().get(subject);
        List<String> failed = new ArrayList<>();
        if (verdicts != null) {
            for (Check gate : scenario.gates()) {
                Verdict verdict = verdicts.get(gate);
                if (verdict != null && !verdict.passed()) {
                    failed.add(gate.name() + " — " + verdict.detail());
                }
            }
        }
        List<String> parts = new ArrayList<>();
        if (!failed.isEmpty()) {
            parts.add((measured ? "FAILS CONFORMANCE in the separate check, though the benchmark's own gate passed: "
                    : "NOT MEASURED, fails conformance: ") + String.join("; ", failed));
        } else if (!measured) {
            parts.add(verdicts == null ? "no result and no conformance verdict" : "no result: the benchmark failed "
                    + "(see the run log)");
        }
        if (scenario.floor().filter(subject::equals).isPresent()) {
            parts.add("floor");
        }
        if (scenario.comparesFifo() && verdicts != null && verdicts.get(Check.SYNC_FIFO) != null) {
            Verdict fifo = verdicts.get(Check.SYNC_FIFO);
            parts.add(fifo.passed() ? "FIFO" : "not FIFO: " + fifo.detail());
        }
        return String.join("; ", parts);
    }

    private static double ratio(Optional<Measurement> measurement, Optional<Measurement> base) {
        if (measurement.isEmpty() || base.isEmpty() || !(base.get().score() > 0)) {
            return Double.NaN;
        }
        return measurement.get().score() / base.get().score();
    }

    static String time(double value) {
        if (Double.isNaN(value)) {
            return "n/a";
        }
        if (value < 10) {
            return String.format(Locale.ROOT, "%.2f", value);
        }
        if (value < 100) {
            return String.format(Locale.ROOT, "%.1f", value);
        }
        return String.format(Locale.ROOT, "%,.0f", value).replace(',', '\u2009');
    }

    static String bytes(double value) {
        if (Double.isNaN(value)) {
            return "n/a";
        }
        return String.format(Locale.ROOT, "%,.0f", Math.abs(value) < 0.5 ? 0.0 : value).replace(',', '\u2009');
    }

    static String times(double ratio) {
        return Double.isNaN(ratio) ? "—" : String.format(Locale.ROOT, "%.2f×", ratio);
    }

    private static String unitWithoutOp(String unit) {
        return unit.endsWith("/op") ? unit.substring(0, unit.length() - 3) : unit;
    }

    private static String escape(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }
}
