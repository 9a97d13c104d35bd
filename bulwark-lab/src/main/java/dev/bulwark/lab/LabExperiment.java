package dev.bulwark.lab;

import dev.bulwark.Priority;
import dev.bulwark.cli.internal.sim.BulkheadSettings;
import dev.bulwark.cli.internal.sim.Slowdown;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * One of the lab's experiments ({@link Scenario}). It starts PostgreSQL, the second HTTP service
 * ({@link RemoteService}) and the service, measures the service (the loaded dependency's time of a call alone, and
 * the capacity with as many clients as the pool has connections), fits the simulator's downstream to them
 * ({@link ServiceModel}) and sizes a fixed limit with the simulator ({@link SimulatorSizing}; Little's law's figure
 * beside it, or in its place when asked), then runs the scenario's open-loop schedule once per guard; in
 * {@link Scenario#SLOWDOWN} a {@link DatabaseSlowdown} (competing queries, or a held lock) runs during each run's
 * second stage. In {@link Scenario#OVERLOAD} and {@link Scenario#REMOTE} each run is paired with the simulator's
 * prediction of it ({@link SimVsReal}); {@link Scenario#REMOTE} loads the path to the second HTTP service instead
 * of the database's. In {@link Scenario#SHEDDING} the runs are per {@link EdgeMode} rather than per guard of the
 * database path, which stays unguarded: critical and sheddable requests at once, to the mode's routes. Everything is
 * stopped at the end.
 */
final class LabExperiment {

    /** How long a request may take before the load generator's client gives up on it. */
    static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(1);
    /** How long a call may wait for a bulkhead's slot before the guard refuses it. */
    static final Duration MAX_WAIT = Duration.ofMillis(50);
    /** How long the warm-up before the measured runs lasts in all; see {@link #warmUp}. */
    private static final Duration WARM_UP = Duration.ofSeconds(12);
    /** The shortest warm-up of one guard; see {@link #warmUp}. */
    private static final Duration WARM_UP_PER_GUARD = Duration.ofSeconds(2);

    /**
     * The experiment's figures.
     *
     * @param scenario which experiment
     * @param started when it started
     * @param quick whether it ran the CI-sized schedule
     * @param cores the processors the JVM saw
     * @param postgresBin where PostgreSQL's binaries were
     * @param workMillisAlone mean time of a call on the loaded dependency with one client: the database's (from the
     *     connection to the commit), or in {@link Scenario#REMOTE} the remote call's
     * @param probe closed-loop throughput by number of clients, as measured ("1: 52/s, 2: 81/s, ...")
     * @param capacityPerSecond the best throughput of the probe
     * @param probeByClients the closed-loop throughput (per second) by number of clients
     * @param model the simulator's downstream fitted to the probe
     * @param sizing the fixed limit sized by the simulator, with Little's law's figure beside it
     * @param fixedSizedBy {@code "simulator"} or {@code "little"}: which of the two the runs used
     * @param fixedLimit the fixed limit the runs used
     * @param slowedCapacityPerSecond {@link Scenario#SLOWDOWN}: the closed-loop throughput of as many clients as the
     *     pool has while the slowdown runs; 0 in the others
     * @param simulatedSpeed {@link Scenario#SLOWDOWN}: the share of its speed the simulator's downstream works at
     *     during the slow stage ({@link SimPredictor#slowdownOf}); 1 in the others
     * @param criticalPerSecond {@link Scenario#SHEDDING}: the critical requests' steady rate; 0 in the others
     * @param slowedBy {@link Scenario#SLOWDOWN}: what slowed the database ({@link DatabaseSlowdown#describe()});
     *     empty in the others
     * @param slowdownRounds {@link Scenario#SLOWDOWN}: per run, the slowdown's rounds that completed during it
     *     (competing queries run to their end, or locks held and released); empty in the others
     * @param loadAverages the machine's one-minute load average when the measurement began and after each run (-1
     *     where the system does not report it): the machine is shared, and above its core count the figures are
     *     the machine's as much as the service's
     * @param stages the schedule each run followed ({@link Scenario#SHEDDING}: its sheddable requests')
     * @param runs one per guard, in the order run; {@link Scenario#SHEDDING}: two per edge mode, its critical
     *     requests' then its sheddable ones', labelled {@code "<mode> critical"} and {@code "<mode> sheddable"}
     * @param simVsReal per run, in the same order, the simulator's prediction beside the measured figures
     *     ({@link Scenario#SLOWDOWN}: the fitted downstream slowed during the second stage by the measured factor,
     *     {@link SimPredictor#slowdownOf}; {@link Scenario#SHEDDING}: one simulation per edge mode with both lanes,
     *     {@link SimPredictor#predictLanes})
     */
    record Result(Scenario scenario, Instant started, boolean quick, int cores, String postgresBin,
            double workMillisAlone, String probe, double capacityPerSecond, Map<Integer, Double> probeByClients,
            ServiceModel model, SimulatorSizing sizing, String fixedSizedBy, int fixedLimit,
            double slowedCapacityPerSecond, double simulatedSpeed, double criticalPerSecond, String slowedBy,
            List<Long> slowdownRounds,
            List<Double> loadAverages, List<Stage> stages, List<RunResult> runs, List<SimVsReal> simVsReal) {
    }

    private final Scenario scenario;
    private final boolean quick;
    private final List<GuardMode> modes;
    private final List<EdgeMode> edgeModes;
    private final boolean fixedByLittle;
    private final boolean slowedByLock;
    private final PrintStream log;

    /**
     * Configures a run.
     *
     * @param scenario which experiment
     * @param quick the CI-sized schedule (about a minute in all) instead of the full one
     * @param modes the guards of the database path to run, in order ({@link Scenario#OVERLOAD} and
     *     {@link Scenario#SLOWDOWN})
     * @param edgeModes the guards of the service's edge to run, in order ({@link Scenario#SHEDDING})
     * @param fixedByLittle the fixed limit by Little's law instead of the simulator's sizing
     * @param slowedByLock {@link Scenario#SLOWDOWN}: slow the database by a {@link HeldLock} instead of
     *     {@link CompetingQueries}
     * @param log where progress goes
     */
    LabExperiment(Scenario scenario, boolean quick, List<GuardMode> modes, List<EdgeMode> edgeModes,
            boolean fixedByLittle, boolean slowedByLock, PrintStream log) {
        this.scenario = scenario;
        this.quick = quick;
        this.modes = List.copyOf(modes);
        this.edgeModes = List.copyOf(edgeModes);
        this.fixedByLittle = fixedByLittle;
        this.slowedByLock = slowedByLock;
        this.log = log;
    }

    /**
     * Runs the experiment.
     *
     * @return its figures
     * @throws Exception when PostgreSQL or the service cannot be started
     */
    Result run() throws Exception {
        Instant started = Instant.now();
        try (PostgresServer postgres = PostgresServer.start(); RemoteService remote = RemoteService.start()) {
            log.println("PostgreSQL from " + postgres.binDir() + " at " + postgres.jdbcUrl());
            log.println("remote service at " + remote.uri() + " (" + RemoteService.WORKERS + " workers; a SHA-256 of "
                    + RemoteService.DIGESTED_BYTES / 1024 + " KiB and a wait of " + RemoteService.WAIT.toMillis()
                    + " ms per request)");
            try (ConfigurableApplicationContext service = LabApplication.start(postgres.jdbcUrl(), remote.uri())) {
                service.getBean(DatabaseWork.class).createSchema();
                try (DatabaseSlowdown slowdown = slowedByLock ? new HeldLock(postgres.jdbcUrl())
                        : new CompetingQueries(postgres.jdbcUrl())) {
                    return measure(started, postgres, service, slowdown);
                }
            }
        }
    }

    private Result measure(Instant started, PostgresServer postgres, ConfigurableApplicationContext service,
            DatabaseSlowdown slowdown) throws Exception {
        DependencyWork work = scenario == Scenario.REMOTE ? service.getBean(RemoteWork.class)
                : service.getBean(DatabaseWork.class);
        DependencyGuard guard = service.getBean(DependencyGuard.class);
        WorkController controller = service.getBean(WorkController.class);
        URI target = URI.create("http://127.0.0.1:" + LabApplication.port(service) + scenario.route());
        log.println("service at " + target + " (HikariCP pool " + LabApplication.POOL_SIZE + ", connection timeout "
                + LabApplication.POOL_TIMEOUT_MILLIS + " ms)");

        List<Double> loadAverages = new ArrayList<>(List.of(loadAverage()));
        CapacityProbe probe = new CapacityProbe();
        guard.use(GuardMode.NONE, 0, MAX_WAIT);
        Duration step = Duration.ofSeconds(quick ? 2 : 4);
        probe.throughput(target, 4, step.multipliedBy(2));   // warms up the JIT and the pool
        CallTimes.Snapshot before = work.times().snapshot();
        double capacity = probe.throughput(target, 1, step);
        CallTimes.Snapshot alone = work.times().snapshot().since(before);
        double workMillis = alone.meanMillis();
        StringBuilder ramp = new StringBuilder(String.format(Locale.ROOT, "1: %.0f/s", capacity));
        Map<Integer, Double> byClients = new LinkedHashMap<>();
        byClients.put(1, Math.round(capacity * 10) / 10.0);
        // A ramp of concurrency up to the pool's size: the capacity is the best throughput seen.
        for (int clients : new int[] {2, 4, 6, LabApplication.POOL_SIZE}) {
            double throughput = probe.throughput(target, clients, step);
            ramp.append(String.format(Locale.ROOT, ", %d: %.0f/s", clients, throughput));
            byClients.put(clients, Math.round(throughput * 10) / 10.0);
            capacity = Math.max(capacity, throughput);
        }
        int littleLimit = littleLimit(capacity, workMillis);
        log.println("closed-loop throughput by clients: " + ramp);
        log.printf(Locale.ROOT, "measured: %s time alone %.2f ms, capacity %.0f/s; Little's law: ceil(%.0f/s x "
                + "%.2f ms) = %d%n", scenario.dependency(), workMillis, capacity, capacity, workMillis, littleLimit);
        ServiceModel model = ServiceModel.fit(workMillis, alone.logSigma(), byClients, LabApplication.POOL_SIZE);
        log.println("simulator's downstream fitted to the probe: " + model.describe());
        SimulatorSizing sizing = SimulatorSizing.size(model, 2 * capacity, LabApplication.POOL_SIZE, CLIENT_TIMEOUT,
                MAX_WAIT, littleLimit);
        int fixedLimit = fixedByLittle ? littleLimit : sizing.limit();
        log.printf(Locale.ROOT, "simulator's sizing at %.0f/s: limit %d (Little's law: %d); the fixed guard uses %d%n",
                sizing.ratePerSecond(), sizing.limit(), littleLimit, fixedLimit);

        double slowedCapacity = 0;
        if (scenario == Scenario.SLOWDOWN) {
            slowdown.start();
            slowedCapacity = probe.throughput(target, LabApplication.POOL_SIZE, step);
            slowdown.stop();
            log.printf(Locale.ROOT, "closed-loop throughput of %d clients while %s: %.0f/s%n",
                    LabApplication.POOL_SIZE, slowdown.describe(), slowedCapacity);
        }

        List<Stage> stages = scenario.stages(capacity, quick);
        List<Slowdown> slowdowns = scenario == Scenario.SLOWDOWN
                ? List.of(SimPredictor.slowdownOf(stages, slowedCapacity, byClients.get(LabApplication.POOL_SIZE)))
                : List.of();
        if (!slowdowns.isEmpty()) {
            log.println("simulator's slow stage: " + slowdowns.get(0).describe());
        }
        long firstNanos = stages.get(0).length().toNanos();
        long stressNanos = stages.get(1).length().toNanos();
        OpenLoopLoad load = new OpenLoopLoad(CLIENT_TIMEOUT);
        List<RunResult> runs = new ArrayList<>();
        List<SimVsReal> simVsReal = new ArrayList<>();
        List<Long> slowdownRounds = new ArrayList<>();
        long seed = 42;
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "lab-slowdown-timer");
            t.setDaemon(true);
            return t;
        });
        try {
            if (scenario == Scenario.SHEDDING) {
                runs.addAll(runEdges(service, target, stages, capacity, loadAverages, model, simVsReal));
            } else {
                warmUp(load, target, guard, capacity, fixedLimit, controller);
            }
            for (GuardMode mode : scenario == Scenario.SHEDDING ? List.<GuardMode>of() : modes) {
                int limit = limitOf(mode, fixedLimit);
                guard.use(mode, limit, MAX_WAIT);
                long poolTimeouts = controller.poolTimeouts();
                long rounds = slowdown.completed();
                log.println("run: " + mode.label() + (limit > 0 ? " (limit " + limit + ")" : ""));
                List<ScheduledFuture<?>> slowdownTimers = new ArrayList<>();
                if (scenario == Scenario.SLOWDOWN) {
                    // The second stage's start and end, on the generator's clock (it starts right after this).
                    slowdownTimers.add(timer.schedule(slowdown::start, firstNanos, TimeUnit.NANOSECONDS));
                    slowdownTimers.add(timer.schedule(() -> {
                        slowdown.stop();
                        return null;
                    }, firstNanos + stressNanos, TimeUnit.NANOSECONDS));
                }
                List<Sample> samples = load.run(target, stages, seed);
                for (ScheduledFuture<?> f : slowdownTimers) {
                    f.get();
                }
                RunResult result = RunResult.of(mode.label(), limit, guard.bulwarkLimit(), samples, stages,
                        controller.poolTimeouts() - poolTimeouts);
                runs.add(result);
                if (scenario != Scenario.SHEDDING) {
                    BulkheadSettings modelled = SimPredictor.settings(scenario, mode, fixedLimit, model.capacity(),
                            MAX_WAIT);
                    simVsReal.add(SimVsReal.of(SimPredictor.predict(model, modelled, stages, samples,
                            CLIENT_TIMEOUT, slowdowns), result));
                }
                if (scenario == Scenario.SLOWDOWN) {
                    slowdownRounds.add(slowdown.completed() - rounds);
                }
                loadAverages.add(loadAverage());
                log.println("  " + Report.row(result) + "  (load average " + loadAverages.get(loadAverages.size() - 1)
                        + ")");
                drain(controller);
            }
        } finally {
            timer.shutdownNow();
        }
        return new Result(scenario, started, quick, Runtime.getRuntime().availableProcessors(),
                postgres.binDir().toString(), Math.round(workMillis * 100) / 100.0, ramp.toString(),
                Math.round(capacity), byClients, model, sizing, fixedByLittle ? "little" : "simulator", fixedLimit,
                Math.round(slowedCapacity), slowdowns.isEmpty() ? 1.0 : slowdowns.get(0).speed(),
                scenario == Scenario.SHEDDING
                        ? Math.round(Scenario.CRITICAL_RATE * capacity * 10) / 10.0 : 0,
                scenario == Scenario.SLOWDOWN ? slowdown.describe() : "", slowdownRounds, loadAverages, stages, runs,
                simVsReal);
    }

    /**
     * {@link Scenario#SHEDDING}'s runs: the database path unguarded, then per edge mode the critical and the
     * sheddable requests sent at once, each by its own open-loop generator, to the mode's two routes. The edge's
     * bulkheads keep the limit they start with, the pool's size ({@link LabApplication}): no more requests in the
     * service than it has connections. The database path's fixed limit is not used: it bounds one transaction,
     * where the edge bounds a whole request, and the simulator sizes it for a model that undersizes what the
     * service serves (docs/lab.md). Per mode, the simulator's prediction of both lanes goes to {@code simVsReal}, in
     * the order of the results.
     *
     * @return two results per mode, critical then sheddable
     */
    private List<RunResult> runEdges(ConfigurableApplicationContext service, URI target, List<Stage> stages,
            double capacity, List<Double> loadAverages, ServiceModel model, List<SimVsReal> simVsReal)
            throws Exception {
        service.getBean(DependencyGuard.class).use(GuardMode.NONE, 0, MAX_WAIT);
        WorkController controller = service.getBean(WorkController.class);
        int edgeLimit = LabApplication.POOL_SIZE;
        List<Stage> criticalStages = scenario.criticalStages(capacity, quick);
        log.printf(Locale.ROOT, "critical requests at %.0f/s throughout; the edge's bulkheads at limit %d, queue %d%n",
                criticalStages.get(0).fromRate(), edgeLimit, DependencyGuard.queueFor(edgeLimit));
        List<RunResult> runs = new ArrayList<>();
        ExecutorService criticalSender = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "lab-critical-load");
            t.setDaemon(true);
            return t;
        });
        try {
            OpenLoopLoad sheddableLoad = new OpenLoopLoad(CLIENT_TIMEOUT);
            OpenLoopLoad criticalLoad = new OpenLoopLoad(CLIENT_TIMEOUT);
            for (EdgeMode mode : edgeModes) {
                int limit = mode == EdgeMode.NONE ? 0 : edgeLimit;
                String critical = mode.prefix() + "/critical";
                String sheddable = mode.prefix() + "/sheddable";
                long criticalTimeouts = controller.poolTimeouts(critical);
                long sheddableTimeouts = controller.poolTimeouts(sheddable);
                log.println("run: " + mode.label() + (limit > 0 ? " (limit " + limit + ")" : ""));
                Future<List<Sample>> criticalSamples = criticalSender.submit(() ->
                        criticalLoad.run(target.resolve(critical), criticalStages, 43));
                List<Sample> sheddableSamples = sheddableLoad.run(target.resolve(sheddable), stages, 42);
                List<Sample> criticalRunSamples = criticalSamples.get();
                RunResult criticalRun = RunResult.of(mode.label() + " critical", limit, -1, criticalRunSamples,
                        criticalStages, controller.poolTimeouts(critical) - criticalTimeouts);
                RunResult sheddableRun = RunResult.of(mode.label() + " sheddable", limit, -1, sheddableSamples,
                        stages, controller.poolTimeouts(sheddable) - sheddableTimeouts);
                runs.add(criticalRun);
                runs.add(sheddableRun);
                boolean prioritized = SimPredictor.prioritized(mode);
                List<List<SimPredictor.StageFigures>> predicted = SimPredictor.predictLanes(model,
                        SimPredictor.edgeSettings(mode), List.of(
                                new SimPredictor.LaneLoad(prioritized ? Priority.CRITICAL : null, criticalStages,
                                        criticalRunSamples),
                                new SimPredictor.LaneLoad(prioritized ? Priority.SHEDDABLE : null, stages,
                                        sheddableSamples)),
                        CLIENT_TIMEOUT, List.of());
                simVsReal.add(SimVsReal.of(predicted.get(0), criticalRun));
                simVsReal.add(SimVsReal.of(predicted.get(1), sheddableRun));
                loadAverages.add(loadAverage());
                log.println("  " + Report.row(criticalRun) + "\n  " + Report.row(sheddableRun) + "  (load average "
                        + loadAverages.get(loadAverages.size() - 1) + ")");
                drain(controller);
            }
        } finally {
            criticalSender.shutdownNow();
        }
        return runs;
    }

    /**
     * Little's law's fixed limit: the calls in flight that the capacity needs when none waits for another.
     *
     * @param capacity requests per second
     * @param workMillis the dependency's time of a call alone
     * @return {@code ceil(capacity x workMillis)}, at least 1, at most the pool's size
     */
    static int littleLimit(double capacity, double workMillis) {
        return (int) Math.max(1, Math.min(LabApplication.POOL_SIZE, Math.ceil(capacity * workMillis / 1e3)));
    }

    private static double loadAverage() {
        return Math.round(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage() * 10) / 10.0;
    }

    /** The limit a guard runs with: none unguarded, the pool's size as {@code selfTuning()}'s start, else fixed. */
    private static int limitOf(GuardMode mode, int fixedLimit) {
        return switch (mode) {
            case NONE -> 0;
            case SELF_TUNING -> LabApplication.POOL_SIZE;
            case FIXED, RESILIENCE4J, SPRING_BLOCK, SPRING_REJECT -> fixedLimit;
        };
    }

    /**
     * Runs every guard of the experiment in turn at twice the capacity, unrecorded, before the measured runs:
     * {@link #WARM_UP} in all, at least {@link #WARM_UP_PER_GUARD} each. The probe warms the dependency's path in
     * a closed loop; the open-loop generator, each guard's admission and refusal paths and the service under
     * overload stay cold until they have served some thousands of requests. Without this, in one quick sitting
     * ({@code --guards fixed,resilience4j,fixed,resilience4j}) the surge goodput of the first two runs was 141 and 159
     * requests/s and of the same guards two runs later 208 and 220: the table favoured whichever guard ran later.
     */
    private void warmUp(OpenLoopLoad load, URI target, DependencyGuard guard, double capacity, int fixedLimit,
                        WorkController controller) throws InterruptedException {
        Duration share = WARM_UP.dividedBy(modes.size());
        Duration each = share.compareTo(WARM_UP_PER_GUARD) < 0 ? WARM_UP_PER_GUARD : share;
        log.printf(Locale.ROOT, "warm-up, not recorded: each guard for %.1f s at 2x (%.0f/s)%n",
                each.toMillis() / 1e3, 2 * capacity);
        for (GuardMode mode : modes) {
            guard.use(mode, limitOf(mode, fixedLimit), MAX_WAIT);
            load.run(target, List.of(Stage.plateau("warm-up", 2 * capacity, each)), 7);
            drain(controller);
        }
    }

    /**
     * Waits (up to 30 s) until the service has no request left, so that one run's backlog does not reach the next,
     * and says on the log how long that took, or how many requests were still in the service after 30 s (then the
     * next run starts with them: a guard that lets a backlog build, Spring's {@code BLOCK}, can leave one); then
     * asks for a garbage collection, so that the next run does not pay for this one's garbage.
     */
    private void drain(WorkController controller) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + Duration.ofSeconds(30).toNanos();
        while (controller.inFlight() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        int left = controller.inFlight();
        log.printf(Locale.ROOT, left == 0 ? "  drained in %.1f s%n" : "  still %2$d requests in the service after "
                + "%1$.0f s%n", (System.nanoTime() - start) / 1e9, left);
        // The generator and the service share this JVM: a collection of the last run's garbage (an unguarded run
        // leaves thousands of timed-out exchanges) would otherwise pause the next run, its generator included.
        System.gc();
    }
}
