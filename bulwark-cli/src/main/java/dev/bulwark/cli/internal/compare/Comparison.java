package dev.bulwark.cli.internal.compare;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Runs {@code bulwark compare}: for each scenario, first the oracle (the fixed limit with the best mean goodput
 * over the seeds, found by a sweep: coarse steps over half to one and a half times the capacities, then every limit
 * around the best, narrowing in by eighths first when a coarse step is above 8), then every contender on the same
 * seeds, and reports each as a share of the oracle's goodput on the same seed. Single-threaded and deterministic
 * for Bulwark's contenders (Netflix's Vegas draws its probe jitter from {@code ThreadLocalRandom}).
 *
 * @param scenarios what to run
 * @param contenders who runs, besides the oracle
 * @param seeds the seeds, each a separate run of every contender
 * @param durationNanos the length of each run
 */
public record Comparison(List<CompareScenario> scenarios, List<Contender> contenders, List<Long> seeds,
                         long durationNanos) {

    /**
     * One contender on one scenario, over the seeds.
     *
     * @param contender its name
     * @param family {@code bulwark}, {@code netflix}, {@code fixed} or {@code oracle}
     * @param shareOfOracle goodput as a share of the oracle's, per seed
     * @param p99Millis p99 latency of answered calls, per seed
     * @param oracleP99Millis the oracle's p99, per seed
     * @param settleSeconds the worst settling time over the capacity steps, per seed (NaN when it never settled
     *     or there are no steps)
     * @param firstSeed the first seed's run, for charts
     */
    public record Row(String contender, String family, double[] shareOfOracle, double[] p99Millis,
                      double[] oracleP99Millis, double[] settleSeconds, CompareRun.Result firstSeed) {

        /** Returns the mean share of the oracle's goodput. @return a fraction */
        public double meanShare() {
            double sum = 0;
            for (double share : shareOfOracle) {
                sum += share;
            }
            return sum / shareOfOracle.length;
        }

        /** Returns the worst seed's share. @return a fraction */
        public double worstShare() {
            double worst = Double.POSITIVE_INFINITY;
            for (double share : shareOfOracle) {
                worst = Math.min(worst, share);
            }
            return worst;
        }

        /** Returns the worst ratio of this p99 to the oracle's, over the seeds. @return a ratio */
        public double worstP99Ratio() {
            double worst = 0;
            for (int i = 0; i < p99Millis.length; i++) {
                worst = Math.max(worst, p99Millis[i] / oracleP99Millis[i]);
            }
            return worst;
        }

        /** Returns the worst settling time over the seeds. @return seconds, NaN when it never settled */
        public double worstSettleSeconds() {
            double worst = 0;
            for (double settle : settleSeconds) {
                if (Double.isNaN(settle)) {
                    return Double.NaN;
                }
                worst = Math.max(worst, settle);
            }
            return worst;
        }
    }

    /**
     * A scenario's results.
     *
     * @param scenario the scenario
     * @param oracleLimit the best fixed limit
     * @param oracleGoodput its goodput per seed, calls per second
     * @param rows the oracle first, then every contender
     * @param sweep the oracle's sensitivity: every fixed limit the sweep ran, in increasing order, to its row
     *     ({@code fixed N}, family {@code fixed}) against the oracle's goodput on the same seed
     */
    public record ScenarioResult(CompareScenario scenario, int oracleLimit, double[] oracleGoodput, List<Row> rows,
                                 NavigableMap<Integer, Row> sweep) {

        /**
         * Returns what each seed's own best fixed limit gets, as a share of the oracle's goodput on that seed: the
         * most a limit chosen with hindsight per run, rather than one for all the seeds, could add.
         *
         * @return the mean over the seeds of the best swept limit's share on each seed, at least 1
         */
        public double bestPerSeedShare() {
            double sum = 0;
            for (int seed = 0; seed < oracleGoodput.length; seed++) {
                double best = 0;
                for (Row fixed : sweep.values()) {
                    best = Math.max(best, fixed.shareOfOracle()[seed]);
                }
                sum += best;
            }
            return sum / oracleGoodput.length;
        }
    }

    /**
     * Runs everything.
     *
     * @param progress told a line per scenario and contender
     * @return one result per scenario, in order
     */
    public List<ScenarioResult> run(Consumer<String> progress) {
        List<ScenarioResult> results = new ArrayList<>();
        for (CompareScenario scenario : scenarios) {
            progress.accept(scenario.name() + ": sweeping fixed limits for the oracle");
            TreeMap<Integer, CompareRun.Result[]> fixed = new TreeMap<>();
            int[] capacities = scenario.capacities();
            int low = Integer.MAX_VALUE;
            int high = 0;
            for (int capacity : capacities) {
                low = Math.min(low, Math.max(1, capacity / 2));
                high = Math.max(high, (capacity * 3 + 1) / 2);
            }
            int step = Math.max(1, (high - low) / 8);
            for (int limit = low; limit <= high; limit += step) {
                fixed.put(limit, runSeeds(scenario, Contender.fixed(limit)));
            }
            int best = bestOf(fixed);
            // Capacities of hundreds have coarse steps of dozens: narrow in twice (a step of an eighth, then every
            // limit) rather than trying every limit within a coarse step. Small capacities (a step of 8 at most,
            // every scenario of the default set) go straight to every limit, as they always did.
            while (step > 8) {
                int fine = Math.max(1, step / 8);
                for (int limit = Math.max(1, best - step + fine); limit < best + step; limit += fine) {
                    if (!fixed.containsKey(limit)) {
                        fixed.put(limit, runSeeds(scenario, Contender.fixed(limit)));
                    }
                }
                best = bestOf(fixed);
                step = fine;
            }
            for (int limit = Math.max(1, best - step + 1); limit < best + step; limit++) {
                if (!fixed.containsKey(limit)) {
                    fixed.put(limit, runSeeds(scenario, Contender.fixed(limit)));
                }
            }
            best = bestOf(fixed);
            CompareRun.Result[] oracle = fixed.get(best);
            double[] oracleGoodput = new double[seeds.size()];
            double[] oracleP99 = new double[seeds.size()];
            for (int i = 0; i < oracle.length; i++) {
                oracleGoodput[i] = oracle[i].goodputPerSecond();
                oracleP99[i] = oracle[i].p99Millis();
            }
            List<Row> rows = new ArrayList<>();
            rows.add(row("oracle: fixed " + best, "oracle", oracle, oracleGoodput, oracleP99));
            for (Contender contender : contenders) {
                progress.accept(scenario.name() + ": " + contender.name());
                rows.add(row(contender.name(), contender.family(), runSeeds(scenario, contender), oracleGoodput,
                        oracleP99));
            }
            TreeMap<Integer, Row> sweep = new TreeMap<>();
            for (var entry : fixed.entrySet()) {
                sweep.put(entry.getKey(), row("fixed " + entry.getKey(), "fixed", entry.getValue(), oracleGoodput,
                        oracleP99));
            }
            results.add(new ScenarioResult(scenario, best, oracleGoodput, List.copyOf(rows),
                    Collections.unmodifiableNavigableMap(sweep)));
        }
        return List.copyOf(results);
    }

    private CompareRun.Result[] runSeeds(CompareScenario scenario, Contender contender) {
        CompareRun.Result[] results = new CompareRun.Result[seeds.size()];
        for (int i = 0; i < results.length; i++) {
            results[i] = new CompareRun(scenario, durationNanos, seeds.get(i)).run(contender);
        }
        return results;
    }

    private static int bestOf(TreeMap<Integer, CompareRun.Result[]> fixed) {
        int best = fixed.firstKey();
        double bestMean = -1;
        for (var entry : fixed.entrySet()) {
            double mean = 0;
            for (CompareRun.Result result : entry.getValue()) {
                mean += result.goodputPerSecond();
            }
            if (mean > bestMean) {
                bestMean = mean;
                best = entry.getKey();
            }
        }
        return best;
    }

    private static Row row(String name, String family, CompareRun.Result[] results, double[] oracleGoodput,
                           double[] oracleP99) {
        double[] share = new double[results.length];
        double[] p99 = new double[results.length];
        double[] settle = new double[results.length];
        for (int i = 0; i < results.length; i++) {
            share[i] = results[i].goodputPerSecond() / oracleGoodput[i];
            p99[i] = results[i].p99Millis();
            double worst = results[i].settleSeconds().length == 0 ? Double.NaN : 0;
            for (double s : results[i].settleSeconds()) {
                worst = Double.isNaN(s) ? Double.POSITIVE_INFINITY : Math.max(worst, s);
            }
            settle[i] = Double.isInfinite(worst) ? Double.NaN : worst;
        }
        return new Row(name, family, share, p99, oracleP99, settle, results[0]);
    }
}
