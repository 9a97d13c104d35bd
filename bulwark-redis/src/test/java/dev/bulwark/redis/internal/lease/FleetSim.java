package dev.bulwark.redis.internal.lease;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * A fleet in virtual time: a discrete-event loop (events in order of time, ties in order of scheduling, so a run
 * is a pure function of its scenario) over instances that each receive Poisson arrivals at their own rate, serve
 * them for exponential times and queue them FIFO up to the maximum wait.
 *
 * <p><b>Leased mode.</b> Each instance admits up to its block and renews as {@link BlockRenewer} does: one renewal
 * in flight, the next a uniformly random 0.75–1.25 periods after the reply was applied, reporting its calls
 * executing and queued and its holding ({@code max(block, in flight)}, as {@link LocalBlock#holding()}); the script
 * runs half a round trip after the send, on a {@link LeaseTable} (the script's twin, checked against Redis), and
 * the grant is applied half a round trip later. A joining instance's first renewal reports nothing, as
 * {@code BlockRenewer.start()} does. The store never fails here, so no lease ends early and no floor is used.
 * With {@link FleetScenario#preShrink()} (what {@link BlockRenewer} does) an instance whose demand fell below its
 * block while the last reply said the fleet was contended lowers its block to its demand just before it sends the
 * renewal; without it, the code before the pre-shrink
 * (the record keeps the unused part one more period). {@link FleetScenario#demand()} selects what the instances
 * report as their demand: their calls executing and queued (what the code does) or an estimate simulated for
 * comparison.
 *
 * <p><b>Exact mode.</b> The model of one fleet-wide FIFO queue in front of the limit, fed the same calls (each
 * instance draws its arrivals and service times from its own random stream, the same in both modes).
 *
 * <p>The calls in flight fleet-wide are counted by admissions and ends only, apart from the blocks. Single-threaded.
 */
final class FleetSim {

    /** Which admission the run simulates. */
    enum Mode { LEASED, EXACT }

    private static final int ARRIVAL = 0;
    private static final int COMPLETION = 1;
    private static final int RENEW_SEND = 2;
    private static final int RENEW_RUN = 3;
    private static final int RENEW_APPLY = 4;
    private static final int CHANGE = 5;
    private static final int SAMPLE = 6;
    /** The store's clock ticks per period (the script's milliseconds). */
    private static final double TICKS = 1_000_000;
    private static final double SAMPLE_EVERY = 0.1;

    private record Event(double at, long seq, int kind, Node node, int epoch, int value, long bits)
            implements Comparable<Event> {
        @Override
        public int compareTo(Event other) {
            int byTime = Double.compare(at, other.at);
            return byTime != 0 ? byTime : Long.compare(seq, other.seq);
        }
    }

    private record Call(Node node, double arrival, double service) {
    }

    private static final class Node {
        final String id;
        final SplittableRandom random;
        int rank;
        double rate;
        int arrivalEpoch;
        int life;
        boolean alive = true;
        boolean started;
        int block;
        int inFlight;
        final ArrayDeque<Call> queue = new ArrayDeque<>();
        int sentDemand;
        int sentHolding;
        int sentExecuting;
        /**
         * For the simulated demand estimates only: since the last send, the calls admitted or refused, their waits,
         * the calls that ended and how long they ran; the mean execution time last measured (-1 before any ended);
         * whether calls were queued at the last send.
         */
        int outcomes;
        int ended;
        double ran;
        double windowStart;
        double meanRun = -1;
        boolean queuedAtLastSend;
        /** The last applied reply's {@code contended}: BlockRenewer pre-shrinks only then. */
        boolean contended;
        /** The {@code contended} of the reply on its way back, applied with its grant. */
        boolean replyContended;

        Node(String id, long seed) {
            this.id = id;
            this.random = new SplittableRandom(seed);
        }
    }

    private final FleetScenario scenario;
    private final Mode mode;
    private final PriorityQueue<Event> events = new PriorityQueue<>();
    private final SplittableRandom fleetRandom;
    private final SplittableRandom jitter;
    private final LeaseTable table = new LeaseTable();
    private final List<Node> nodes = new ArrayList<>();
    private final ArrayDeque<Call> fleetQueue = new ArrayDeque<>();
    private final double[] weights;
    private final double weightSum;
    private final double[] windowArea;
    private final double[] windowInstances;
    private long seq;
    private double now;
    private double areaUpTo;
    private int fleetInFlight;
    private int aliveCount;
    private double demandScale = 1;
    private int maxInFlight;
    private long maxRecorded;
    private long enforcedAboveRecorded;
    private long storeOps;
    private long divisions;
    private long calls;
    private long timedOut;
    private double[] waits = new double[1 << 16];
    private int waitCount;
    private Map<String, Integer> targets;
    private final List<double[]> samples = new ArrayList<>();

    private FleetSim(FleetScenario scenario, Mode mode) {
        this.scenario = scenario;
        this.mode = mode;
        this.fleetRandom = new SplittableRandom(scenario.seed());
        this.jitter = new SplittableRandom(scenario.seed() * 31 + 7);
        this.weights = new double[scenario.instances() + 1];
        double sum = 0;
        for (int rank = 1; rank <= scenario.instances(); rank++) {
            weights[rank] = Math.pow(rank, -scenario.zipf());
            sum += weights[rank];
        }
        this.weightSum = sum;
        int windows = (int) Math.ceil(scenario.duration());
        this.windowArea = new double[windows];
        this.windowInstances = new double[windows];
    }

    /** Runs a scenario in one mode. */
    static FleetResult run(FleetScenario scenario, Mode mode) {
        return new FleetSim(scenario, mode).run();
    }

    private FleetResult run() {
        int[] ranks = shuffledRanks(scenario.instances());
        for (int i = 0; i < scenario.instances(); i++) {
            Node node = join(ranks[i]);
            node.started = true;
            if (mode == Mode.LEASED) {
                // The instances started at different times: their renewals are spread over the first period.
                schedule(jitter.nextDouble(), RENEW_SEND, node, node.life, 0);
            }
        }
        targets = fairShares();
        schedule(scenario.changeAt(), CHANGE, null, 0, 0);
        if (mode == Mode.LEASED) {
            for (double at = scenario.changeAt() - 3; at < scenario.duration(); at += SAMPLE_EVERY) {
                schedule(at, SAMPLE, null, 0, 0);
            }
        }
        while (!events.isEmpty() && events.peek().at() < scenario.duration()) {
            Event event = events.poll();
            advance(event.at());
            handle(event);
        }
        advance(scenario.duration());
        return result();
    }

    private void handle(Event event) {
        Node node = event.node();
        switch (event.kind()) {
            case ARRIVAL -> {
                if (node.alive && event.epoch() == node.arrivalEpoch) {
                    arrive(node);
                }
            }
            case COMPLETION -> {
                if (event.epoch() == node.life) {
                    node.ended++;
                    node.ran += Double.longBitsToDouble(event.bits());
                    node.inFlight--;
                    fleetInFlight--;
                    admitQueued(node);
                }
            }
            case RENEW_SEND -> {
                if (event.epoch() == node.life) {
                    send(node);
                }
            }
            case RENEW_RUN -> {
                if (event.epoch() == node.life) {
                    runScript(node);
                }
            }
            case RENEW_APPLY -> {
                if (event.epoch() == node.life) {
                    apply(node, event.value());
                }
            }
            case CHANGE -> change();
            case SAMPLE -> sample();
            default -> throw new IllegalStateException("unknown event " + event.kind());
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Calls

    private void arrive(Node node) {
        schedule(now + exponential(node.random, 1 / node.rate), ARRIVAL, node, node.arrivalEpoch, 0);
        Call call = new Call(node, now, exponential(node.random, scenario.serviceTime()));
        if (measured(now)) {
            calls++;
        }
        if (mode == Mode.LEASED) {
            if (node.queue.isEmpty() && node.inFlight < node.block) {
                start(call);
            } else {
                node.queue.add(call);
            }
        } else if (fleetQueue.isEmpty() && fleetInFlight < scenario.limit()) {
            start(call);
        } else {
            fleetQueue.add(call);
        }
    }

    private void start(Call call) {
        Node node = call.node();
        node.inFlight++;
        fleetInFlight++;
        maxInFlight = Math.max(maxInFlight, fleetInFlight);
        if (measured(call.arrival())) {
            if (waitCount == waits.length) {
                waits = Arrays.copyOf(waits, waits.length * 2);
            }
            waits[waitCount++] = now - call.arrival();
        }
        node.outcomes++;
        // The service time rides along, for the offered-load estimate (a double's bits).
        events.add(new Event(now + call.service(), seq++, COMPLETION, node, node.life, 0,
                Double.doubleToLongBits(call.service())));
    }

    private void admitQueued(Node node) {
        if (mode == Mode.LEASED) {
            while (node.inFlight < node.block && !node.queue.isEmpty()) {
                Call call = node.queue.poll();
                if (!expired(call)) {
                    start(call);
                }
            }
        } else {
            while (fleetInFlight < scenario.limit() && !fleetQueue.isEmpty()) {
                Call call = fleetQueue.poll();
                if (call.node().alive && !expired(call)) {
                    start(call);
                }
            }
        }
    }

    /** Whether a queued call waited past its maximum (and is refused, counted once). */
    private boolean expired(Call call) {
        if (now - call.arrival() <= scenario.maxWait()) {
            return false;
        }
        call.node().outcomes++;
        if (measured(call.arrival())) {
            timedOut++;
        }
        return true;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Renewals

    private void send(Node node) {
        while (!node.queue.isEmpty() && expired(node.queue.peek())) {
            node.queue.poll();
        }
        if (node.started) {
            node.sentExecuting = node.inFlight;
            node.sentDemand = demand(node);
            if (scenario.preShrink() && node.contended && node.sentDemand < node.block) {
                // BlockRenewer's pre-shrink: the block falls to the demand before the report, so the record need
                // not keep the unused part for another period.
                node.block = node.sentDemand;
            }
            node.sentHolding = Math.max(node.block, node.inFlight);
        } else {
            node.started = true;
        }
        node.outcomes = 0;
        node.ended = 0;
        node.ran = 0;
        node.windowStart = now;
        schedule(now + scenario.rtt() / 2, RENEW_RUN, node, node.life, 0);
    }

    /**
     * The demand an instance reports: its calls executing and queued, as {@link BlockRenewer} does; or one of the
     * simulated estimates ({@link FleetScenario.Demand}): the load offered since the last send (the calls admitted
     * or refused times their mean execution time, over the time; rounded, at least the calls executing), with the
     * calls executing and queued as a floor when calls were queued at this send and the last one; before any call
     * ended, the calls executing and queued.
     */
    private int demand(Node node) {
        int snapshot = node.inFlight + node.queue.size();
        boolean persistentQueue = node.queuedAtLastSend && !node.queue.isEmpty();
        node.queuedAtLastSend = !node.queue.isEmpty();
        if (node.ended > 0) {
            node.meanRun = node.ran / node.ended;
        }
        double window = now - node.windowStart;
        FleetScenario.Demand estimate = scenario.demand();
        if (estimate == FleetScenario.Demand.SNAPSHOT || estimate == FleetScenario.Demand.FAIR_SHARES
                || node.meanRun < 0 || window <= 0) {
            return snapshot;
        }
        long offered = Math.round(node.outcomes * node.meanRun / window);
        int demand = (int) Math.max(node.inFlight, Math.min(Integer.MAX_VALUE, offered));
        return estimate == FleetScenario.Demand.OFFERED_PERSISTENT_QUEUE && persistentQueue
                ? Math.max(demand, snapshot) : demand;
    }

    private void runScript(Node node) {
        long divisionsBefore = table.divisions();
        long[] reply = table.renew(node.id, node.sentDemand, node.sentHolding, Math.round(3 * TICKS),
                Math.round(TICKS), scenario.limit(), false, node.sentExecuting, Math.round(now * TICKS));
        maxRecorded = Math.max(maxRecorded, Math.max(reply[3], table.recordedSum()));
        node.replyContended = reply[4] == 1;
        if (measured(now)) {
            storeOps++;
            divisions += table.divisions() - divisionsBefore;
        }
        schedule(now + scenario.rtt() / 2, RENEW_APPLY, node, node.life, (int) reply[0]);
    }

    private void apply(Node node, int grant) {
        if (grant > table.block(node.id)) {
            enforcedAboveRecorded++;
        }
        // FAIR_SHARES is a bound, not a protocol: every instance runs its fair share of the offered loads, whatever
        // it was granted.
        node.block = scenario.demand() == FleetScenario.Demand.FAIR_SHARES ? targets.get(node.id) : grant;
        node.contended = node.replyContended;
        admitQueued(node);
        schedule(now + 0.75 + 0.5 * jitter.nextDouble(), RENEW_SEND, node, node.life, 0);
    }

    // ---------------------------------------------------------------------------------------------------------
    // The fleet

    private Node join(int rank) {
        Node node = new Node(String.format("i%06d", nodes.size()), scenario.seed() * 1_000_003 + nodes.size());
        nodes.add(node);
        aliveCount++;
        setRank(node, rank);
        return node;
    }

    private void setRank(Node node, int rank) {
        node.rank = rank;
        double share = weights[rank] / weightSum;
        node.rate = demandScale * scenario.overload() * scenario.limit() / scenario.serviceTime() * share;
        node.arrivalEpoch++;
        schedule(now + exponential(node.random, 1 / node.rate), ARRIVAL, node, node.arrivalEpoch, 0);
    }

    private void change() {
        switch (scenario.shift()) {
            case NONE -> {
                return;
            }
            case HOT_SET_MOVES -> {
                int half = scenario.instances() / 2;
                for (Node node : nodes) {
                    setRank(node, (node.rank - 1 + half) % scenario.instances() + 1);
                }
            }
            case SURGE -> {
                demandScale = 2;
                for (Node node : nodes) {
                    setRank(node, node.rank);
                }
            }
            case CHURN -> {
                List<Node> alive = new ArrayList<>(nodes.stream().filter(node -> node.alive).toList());
                int dying = scenario.instances() / 10;
                for (int i = 0; i < dying; i++) {
                    Node node = alive.remove(fleetRandom.nextInt(alive.size()));
                    // The process dies with its calls: they end for the downstream at once.
                    node.alive = false;
                    aliveCount--;
                    node.life++;
                    fleetInFlight -= node.inFlight;
                    node.inFlight = 0;
                    node.queue.clear();
                    Node replacement = join(node.rank);
                    if (mode == Mode.LEASED) {
                        schedule(now, RENEW_SEND, replacement, replacement.life, 0);
                    }
                }
                if (mode == Mode.EXACT) {
                    admitQueued(null);
                }
            }
            default -> throw new IllegalStateException(scenario.shift().toString());
        }
        targets = fairShares();
    }

    /** The fair shares of the offered loads (rate times mean service time): where the blocks should converge. */
    private Map<String, Integer> fairShares() {
        Map<String, Integer> offered = new HashMap<>();
        for (Node node : nodes) {
            if (node.alive) {
                offered.put(node.id, (int) Math.round(node.rate * scenario.serviceTime()));
            }
        }
        return FairShares.targets(scenario.limit(), offered);
    }

    /** How much of the limit the blocks hold away from the fair shares: half the sum of the differences. */
    private void sample() {
        long misplaced = 0;
        for (Node node : nodes) {
            if (node.alive) {
                misplaced += Math.abs(node.block - targets.get(node.id));
            }
        }
        samples.add(new double[] {now, misplaced / 2.0 / scenario.limit()});
    }

    // ---------------------------------------------------------------------------------------------------------
    // Measuring

    private boolean measured(double at) {
        return at >= scenario.warmUp();
    }

    /** Integrates the calls in flight and the live instances over time, period by period. */
    private void advance(double to) {
        while (areaUpTo < to) {
            int window = (int) Math.floor(areaUpTo);
            double end = Math.min(to, window + 1);
            windowArea[window] += fleetInFlight * (end - areaUpTo);
            windowInstances[window] += aliveCount * (end - areaUpTo);
            areaUpTo = end;
        }
        now = to;
    }

    private FleetResult result() {
        int first = (int) Math.ceil(scenario.warmUp());
        double steady = 0;
        int steadyWindows = 0;
        double minimum = Double.MAX_VALUE;
        double instances = 0;
        for (int window = first; window < windowArea.length; window++) {
            double utilization = windowArea[window] / scenario.limit();
            minimum = Math.min(minimum, utilization);
            instances += windowInstances[window];
            boolean afterChange = scenario.shift() != FleetScenario.Shift.NONE && window >= scenario.changeAt()
                    && window < scenario.changeAt() + 3;
            if (!afterChange) {
                steady += utilization;
                steadyWindows++;
            }
        }
        double measuredTime = windowArea.length - first;
        double[] sorted = Arrays.copyOf(waits, waitCount);
        Arrays.sort(sorted);
        return new FleetResult(scenario, mode, steady / steadyWindows, minimum, percentile(sorted, 0.50),
                percentile(sorted, 0.99), calls == 0 ? 0 : (double) timedOut / calls, storeOps / measuredTime,
                instances / measuredTime, convergence(), maxInFlight, maxRecorded, enforcedAboveRecorded, calls,
                divisions / measuredTime);
    }

    private double convergence() {
        if (mode == Mode.EXACT || scenario.shift() == FleetScenario.Shift.NONE) {
            return Double.NaN;
        }
        double before = 0;
        int count = 0;
        for (double[] sample : samples) {
            if (sample[0] < scenario.changeAt()) {
                before += sample[1];
                count++;
            }
        }
        double bar = before / count + 0.05;
        for (double[] sample : samples) {
            if (sample[0] >= scenario.changeAt() && sample[1] <= bar) {
                return sample[0] - scenario.changeAt();
            }
        }
        return Double.POSITIVE_INFINITY;
    }

    private static double percentile(double[] sorted, double p) {
        return sorted.length == 0 ? 0 : sorted[(int) Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
    }

    // ---------------------------------------------------------------------------------------------------------
    // Plumbing

    private int[] shuffledRanks(int count) {
        int[] ranks = new int[count];
        for (int i = 0; i < count; i++) {
            ranks[i] = i + 1;
        }
        for (int i = count - 1; i > 0; i--) {
            int j = fleetRandom.nextInt(i + 1);
            int swap = ranks[i];
            ranks[i] = ranks[j];
            ranks[j] = swap;
        }
        return ranks;
    }

    private void schedule(double at, int kind, Node node, int epoch, int value) {
        events.add(new Event(at, seq++, kind, node, epoch, value, 0));
    }

    private static double exponential(SplittableRandom random, double mean) {
        return -mean * Math.log(1 - random.nextDouble());
    }
}
