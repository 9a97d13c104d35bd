package dev.bulwark.cli.internal.sim;

import dev.bulwark.Priority;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A load schedule ({@code simulate --schedule}): the open-loop arrival rate over the run, in phases of a steady or a
 * linearly ramping rate, either for all calls or separately for each priority (one lane per priority). Arrivals
 * remain Poisson, with a rate that changes over time. Immutable.
 *
 * <h2>Grammar</h2>
 * <pre>
 * SCHEDULE := LANE (';' LANE)*
 * LANE     := [PRIORITY ':'] PHASE (',' PHASE)*
 * PHASE    := RATE 'for' DURATION            a steady rate
 *           | RATE '..' RATE 'for' DURATION  a ramp from the first rate to the second
 * RATE     := a rate as --rate takes it (800/s, 48000/m, 5/ms), 0, or a multiple of --rate such as 12x or 0.5x
 * </pre>
 * <p>Every lane lasts as long as the others (the run's length). A schedule with no priority has one lane and its
 * calls take their priorities from {@code --priority-mix}; a schedule with priorities gives every lane one, and a
 * call's priority is that of the lane it came from. (Built in code rather than parsed, a schedule may also have
 * several lanes without a priority; see the constructor.)
 *
 * @param lanes the lanes, at least one, all of the same length
 */
public record LoadSchedule(List<Lane> lanes) {

    private static final String SEVERAL_LANES_NEED_PRIORITIES =
            "with several lanes every lane needs a priority ('critical: ...; sheddable: ...')";

    /** The grammar, quoted in error messages. */
    public static final String FORM = "phases 'RATE for DURATION' or 'RATE..RATE for DURATION' separated by commas, "
            + "optionally one lane per priority ('critical: 0.5x for 120s; sheddable: 0.25x for 30s, 12x for 60s, "
            + "0.25x for 30s'), RATE as for --rate, 0, or a multiple of --rate such as 12x";

    /**
     * One phase: the rate moves linearly from {@code fromPerSecond} to {@code toPerSecond} over {@code nanos}
     * (a steady rate when both are equal).
     *
     * @param fromPerSecond the rate at the start of the phase, at least 0
     * @param toPerSecond the rate at its end, at least 0
     * @param nanos its length, positive
     */
    public record Phase(double fromPerSecond, double toPerSecond, long nanos) {

        /** Checks the phase. @throws IllegalArgumentException when a rate is negative or the length not positive */
        public Phase {
            if (!(fromPerSecond >= 0) || !(toPerSecond >= 0) || Double.isInfinite(fromPerSecond)
                    || Double.isInfinite(toPerSecond) || nanos <= 0) {
                throw new IllegalArgumentException("a phase needs finite rates of at least 0 and a positive length");
            }
        }

        double rateAt(long offsetNanos) {
            return fromPerSecond + (toPerSecond - fromPerSecond) * ((double) offsetNanos / nanos);
        }
    }

    /**
     * The arrivals of one priority, or of all calls.
     *
     * @param priority the priority of the lane's calls, or {@code null}: drawn from the priority mix
     * @param phases the phases in time order, at least one
     */
    public record Lane(Priority priority, List<Phase> phases) {

        /** Checks the lane. @throws IllegalArgumentException when it has no phase */
        public Lane {
            phases = List.copyOf(phases);
            if (phases.isEmpty()) {
                throw new IllegalArgumentException("a lane needs at least one phase");
            }
        }

        long lengthNanos() {
            return phases.stream().mapToLong(Phase::nanos).sum();
        }

        double rateAt(long offsetNanos) {
            long left = offsetNanos;
            for (Phase phase : phases) {
                if (left < phase.nanos()) {
                    return phase.rateAt(left);
                }
                left -= phase.nanos();
            }
            return 0;
        }

        double peak() {
            return phases.stream().mapToDouble(p -> Math.max(p.fromPerSecond(), p.toPerSecond())).max().orElse(0);
        }

        double calls() {
            return phases.stream().mapToDouble(p -> (p.fromPerSecond() + p.toPerSecond()) / 2 * p.nanos() / 1e9)
                    .sum();
        }
    }

    /**
     * Checks the schedule.
     *
     * @throws IllegalArgumentException when lanes differ in length, a priority is given twice, lanes with and
     *     without a priority are mixed, or no call would ever arrive. Several lanes without a priority are allowed
     *     (the grammar cannot write them): their calls draw their priorities from the run's mix, and only a
     *     {@link CallObserver}'s lane index tells them apart, as the lab's shedding prediction needs
     */
    public LoadSchedule {
        lanes = List.copyOf(lanes);
        if (lanes.isEmpty()) {
            throw new IllegalArgumentException("a schedule needs at least one lane");
        }
        EnumSet<Priority> seen = EnumSet.noneOf(Priority.class);
        boolean prioritized = lanes.get(0).priority() != null;
        for (Lane lane : lanes) {
            if ((lane.priority() != null) != prioritized) {
                throw new IllegalArgumentException(SEVERAL_LANES_NEED_PRIORITIES);
            }
            if (prioritized && !seen.add(lane.priority())) {
                throw new IllegalArgumentException("the priority " + name(lane.priority()) + " has two lanes");
            }
            if (lane.lengthNanos() != lanes.get(0).lengthNanos()) {
                throw new IllegalArgumentException("every lane must last as long as the first ("
                        + Durations.format(Duration.ofNanos(lanes.get(0).lengthNanos())) + ") but "
                        + (lane.priority() == null ? "one" : name(lane.priority())) + " lasts "
                        + Durations.format(Duration.ofNanos(lane.lengthNanos())));
            }
        }
        if (!(lanes.stream().mapToDouble(Lane::peak).sum() > 0)) {
            throw new IllegalArgumentException("no call would ever arrive: every rate is 0");
        }
    }

    /**
     * Parses a schedule in the grammar above.
     *
     * @param text the schedule
     * @param base what {@code 1x} stands for ({@code --rate})
     * @return the schedule
     * @throws IllegalArgumentException when the text does not follow the grammar, naming the part that does not
     */
    public static LoadSchedule parse(String text, Rate base) {
        Objects.requireNonNull(base, "base");
        List<Lane> lanes = new ArrayList<>();
        for (String laneText : text.split(";", -1)) {
            String body = laneText.trim();
            Priority priority = null;
            int colon = body.indexOf(':');
            if (colon >= 0) {
                String name = body.substring(0, colon).trim();
                try {
                    priority = Priority.valueOf(name.toUpperCase(Locale.ROOT));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("'" + name + "' is not a priority (critical, high, normal, "
                            + "low, sheddable)");
                }
                body = body.substring(colon + 1).trim();
            }
            if (body.isEmpty()) {
                throw new IllegalArgumentException("a lane has no phase; expected " + FORM);
            }
            List<Phase> phases = new ArrayList<>();
            for (String phaseText : body.split(",", -1)) {
                phases.add(phase(phaseText.trim(), base));
            }
            lanes.add(new Lane(priority, phases));
        }
        if (lanes.size() > 1 && lanes.stream().anyMatch(lane -> lane.priority() == null)) {
            throw new IllegalArgumentException(SEVERAL_LANES_NEED_PRIORITIES);
        }
        return new LoadSchedule(lanes);
    }

    private static Phase phase(String text, Rate base) {
        String[] parts = text.split("\\s+for\\s+", -1);
        if (parts.length != 2 || parts[0].isBlank()) {
            throw new IllegalArgumentException("'" + text + "' is not a phase; expected 'RATE for DURATION' or "
                    + "'RATE..RATE for DURATION', such as '12x for 60s' or '800/s..19200/s for 5s'");
        }
        Duration length = Durations.parse(parts[1]);
        if (length.isZero()) {
            throw new IllegalArgumentException("'" + text + "' lasts no time; a phase needs a positive duration");
        }
        String[] rates = parts[0].split("\\.\\.", -1);
        if (rates.length > 2) {
            throw new IllegalArgumentException("'" + parts[0] + "' is not a rate or a ramp RATE..RATE");
        }
        double from = rate(rates[0].trim(), base);
        double to = rates.length == 2 ? rate(rates[1].trim(), base) : from;
        return new Phase(from, to, length.toNanos());
    }

    private static double rate(String text, Rate base) {
        String lower = text.toLowerCase(Locale.ROOT);
        if (lower.endsWith("x")) {
            try {
                double factor = new BigDecimal(lower.substring(0, lower.length() - 1).trim()).doubleValue();
                if (factor >= 0 && !Double.isInfinite(factor)) {
                    return factor * base.perSecond();
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new IllegalArgumentException("'" + text + "' is not a multiple of --rate such as 12x or 0.5x");
        }
        if (lower.matches("0+(\\.0+)?\\s*(/\\s*(ms|s|m|h))?")) {
            return 0;
        }
        return Rate.parse(text).perSecond();
    }

    /**
     * Returns how long the schedule lasts: the run's length.
     *
     * @return positive
     */
    public Duration length() {
        return Duration.ofNanos(lanes.get(0).lengthNanos());
    }

    /**
     * Returns the highest total rate at any time: the rate of the candidates that {@link #laneAt} thins.
     *
     * @return calls per second, positive
     */
    public double peakPerSecond() {
        return lanes.stream().mapToDouble(Lane::peak).sum();
    }

    /**
     * Returns the mean total rate over the schedule.
     *
     * @return calls per second, positive
     */
    public Rate meanRate() {
        return new Rate(lanes.stream().mapToDouble(Lane::calls).sum() / (lanes.get(0).lengthNanos() / 1e9));
    }

    /**
     * Thins a candidate arrival of a Poisson process at {@link #peakPerSecond()}: a candidate at a time where the
     * lanes' rates add up to r is kept with probability r / peak, and it belongs to the lane whose share of the
     * peak {@code uniform} falls in. One number decides both, so the kept arrivals of each lane form a Poisson
     * process at that lane's rate.
     *
     * @param offsetNanos the candidate's time since the start of the run
     * @param uniform a number in [0, 1)
     * @return the index in {@link #lanes()} of the lane the arrival belongs to, or -1 when the candidate is dropped
     */
    public int laneAt(long offsetNanos, double uniform) {
        double point = uniform * peakPerSecond();
        double cumulative = 0;
        for (int index = 0; index < lanes.size(); index++) {
            cumulative += lanes.get(index).rateAt(offsetNanos);
            if (point < cumulative) {
                return index;
            }
        }
        return -1;
    }

    /**
     * Returns the times at which some lane's phase ends, the run's end included: the schedule's periods are between
     * two of them.
     *
     * @return the ends, in time order, without repeats, since the start of the run
     */
    public List<Duration> phaseEnds() {
        java.util.TreeSet<Long> ends = new java.util.TreeSet<>();
        for (Lane lane : lanes) {
            long end = 0;
            for (Phase phase : lane.phases()) {
                end += phase.nanos();
                ends.add(end);
            }
        }
        return ends.stream().map(Duration::ofNanos).toList();
    }

    /**
     * Returns the total rate at a time, all lanes together.
     *
     * @param offset the time since the start of the run
     * @return calls per second, at least 0 (0 after the end)
     */
    public double rateAt(Duration offset) {
        long nanos = offset.toNanos();
        return lanes.stream().mapToDouble(lane -> lane.rateAt(nanos)).sum();
    }

    /**
     * Returns the priorities of the lanes with their share of the scheduled calls, for the report's breakdown.
     *
     * @return the mix, or {@code null} when the schedule has no priorities
     */
    public Mix<Priority> priorityShares() {
        if (lanes.get(0).priority() == null) {
            return null;
        }
        double total = lanes.stream().mapToDouble(Lane::calls).sum();
        List<Mix.Entry<Priority>> entries = new ArrayList<>();
        double sum = 0;
        StringBuilder spec = new StringBuilder();
        for (int i = 0; i < lanes.size(); i++) {
            Lane lane = lanes.get(i);
            // The last share takes the rounding, so that the shares add up to 100 exactly.
            double percent = i == lanes.size() - 1 ? 100 - sum : 100 * lane.calls() / total;
            sum += percent;
            entries.add(new Mix.Entry<>(lane.priority(), Math.max(percent, Double.MIN_VALUE)));
            spec.append(spec.length() > 0 ? "," : "").append(name(lane.priority())).append(':')
                    .append(new BigDecimal(percent).round(new java.math.MathContext(3)).stripTrailingZeros()
                            .toPlainString()).append('%');
        }
        return new Mix<>(entries, spec + " (from --schedule)");
    }

    /**
     * Writes the schedule in the grammar, with rates per second.
     *
     * @return for example {@code critical: 800/s for 2m; sheddable: 400/s for 30s, 19200/s for 1m, 400/s for 30s}
     */
    public String describe() {
        StringBuilder text = new StringBuilder();
        for (Lane lane : lanes) {
            text.append(text.length() > 0 ? "; " : "");
            if (lane.priority() != null) {
                text.append(name(lane.priority())).append(": ");
            }
            StringBuilder phases = new StringBuilder();
            for (Phase phase : lane.phases()) {
                phases.append(phases.length() > 0 ? ", " : "").append(rate(phase.fromPerSecond()));
                if (phase.toPerSecond() != phase.fromPerSecond()) {
                    phases.append("..").append(rate(phase.toPerSecond()));
                }
                phases.append(" for ").append(Durations.format(Duration.ofNanos(phase.nanos())));
            }
            text.append(phases);
        }
        return text.toString();
    }

    private static String rate(double perSecond) {
        return perSecond == 0 ? "0/s" : new Rate(perSecond).toString();
    }

    private static String name(Priority priority) {
        return priority.name().toLowerCase(Locale.ROOT);
    }
}
