package dev.bulwark.cli.internal.report;

import dev.bulwark.cli.internal.sim.ProgressListener;
import dev.bulwark.cli.internal.sim.Simulation;
import dev.bulwark.cli.internal.sim.SimulationResult;
import dev.bulwark.cli.internal.sim.SimulationSettings;
import java.time.Duration;

/** Real short runs for the report tests: one protected, one unprotected. Each is run once per test JVM. */
final class ShortRuns {

    private static SimulationResult protectedRun;
    private static SimulationResult unprotectedRun;

    private ShortRuns() {
    }

    static synchronized SimulationResult withBulkhead() {
        if (protectedRun == null) {
            protectedRun = run(settings().build());
        }
        return protectedRun;
    }

    static synchronized SimulationResult withoutBulkhead() {
        if (unprotectedRun == null) {
            unprotectedRun = run(settings().bulkhead(null).build());
        }
        return unprotectedRun;
    }

    private static SimulationSettings.Builder settings() {
        return SimulationSettings.builder().duration(Duration.ofMillis(800)).drain(Duration.ofMillis(200)).seed(11);
    }

    private static SimulationResult run(SimulationSettings settings) {
        return new Simulation(settings).run(ProgressListener.none());
    }
}
