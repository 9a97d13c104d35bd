package dev.bulwark.lab;

import java.util.ArrayList;
import java.util.List;

/**
 * One run of an experiment beside the simulator's prediction of it, stage by stage: goodput and p99 (every outcome,
 * a client timeout counting as the timeout), predicted, measured, and their ratio. The bar is a goodput
 * within 10% and a p99 within 20% of the measured. Immutable.
 *
 * @param guard the run's guard
 * @param stages one row per stage of the schedule
 */
record SimVsReal(String guard, List<Row> stages) {

    /** The goodput bar: predicted within this share of the measured. */
    static final double GOODPUT_BAR = 0.10;
    /** The p99 bar. */
    static final double P99_BAR = 0.20;

    /**
     * One stage.
     *
     * @param stage its name
     * @param predictedGoodput the simulator's goodput, per second
     * @param measuredGoodput the lab's
     * @param goodputRatio predicted over measured, unrounded (1 when both are 0; infinite when only the measured
     *     one is)
     * @param predictedP99Millis the simulator's p99, every outcome
     * @param measuredP99Millis the lab's
     * @param p99Ratio predicted over measured
     * @param withinBar whether both ratios are within the bars
     */
    record Row(String stage, double predictedGoodput, double measuredGoodput, double goodputRatio,
            double predictedP99Millis, double measuredP99Millis, double p99Ratio, boolean withinBar) {
    }

    /**
     * Pairs a prediction with a run.
     *
     * @param predicted the simulator's figures per stage
     * @param measured the run
     * @return the comparison
     * @throws IllegalArgumentException when the two have different numbers of stages
     */
    static SimVsReal of(List<SimPredictor.StageFigures> predicted, RunResult measured) {
        if (predicted.size() != measured.stageGoodputPerSecond().size()
                || predicted.size() != measured.stageP99Millis().size()) {
            throw new IllegalArgumentException("predicted " + predicted.size() + " stages, measured "
                    + measured.stageGoodputPerSecond().size());
        }
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < predicted.size(); i++) {
            SimPredictor.StageFigures p = predicted.get(i);
            double goodput = measured.stageGoodputPerSecond().get(i);
            double p99 = measured.stageP99Millis().get(i);
            double goodputRatio = ratio(p.goodputPerSecond(), goodput);
            double p99Ratio = ratio(p.p99Millis(), p99);
            rows.add(new Row(p.stage(), p.goodputPerSecond(), goodput, goodputRatio, p.p99Millis(), p99, p99Ratio,
                    within(p.goodputPerSecond(), goodput, GOODPUT_BAR) && within(p.p99Millis(), p99, P99_BAR)));
        }
        return new SimVsReal(measured.guard(), List.copyOf(rows));
    }

    private static double ratio(double predicted, double measured) {
        if (measured == 0) {
            // Nothing measured: right when nothing was predicted either (a guard that served no one, as foreseen).
            return predicted == 0 ? 1 : Double.POSITIVE_INFINITY;
        }
        return predicted / measured;
    }

    /**
     * Whether the prediction is within {@code bar} of the measured figure, decided on the figures themselves: neither
     * on a ratio rounded for display (a 1.096 shown as 1.10 is within 10%) nor on {@code |ratio - 1|}, whose floating
     * point puts an exact 110 against 100 at 0.10000000000000009, just outside.
     */
    static boolean within(double predicted, double measured, double bar) {
        return Math.abs(predicted - measured) <= bar * measured;
    }
}
