package dev.bulwark.cli.internal.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.AdaptiveLimit;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The per-tenant run's downstream: a pure delay without a capacity, the simulator's processor-sharing model with
 * one, so that waits grow with the load and an adaptive global limit has something to follow.
 */
class TenantSimulationTest {

    private static final Distribution TEN_MS = Distribution.parse("fixed:10ms");
    /** 8 calls of 10 ms at once: 800 calls/s at full speed. */
    private static final int CAPACITY = 8;

    private static TenantSimulation.Result run(double perTenantPerSecond, Integer capacity, AdaptiveLimit adaptive) {
        return new TenantSimulation(new TenantSimulation.Settings(2, 1, new Rate(perTenantPerSecond), TEN_MS, 64, 64,
                64, Duration.ofMillis(100), 64, adaptive, true, capacity, 1.0, Duration.ofSeconds(5), 7)).run();
    }

    @Test
    void withACapacityTheWaitGrowsWithTheLoadAsItDoesNotOverAPureDelay() {
        // Half the capacity, then one and a half times it (two tenants at 200/s or 600/s of 10 ms work).
        TenantSimulation.Result light = run(200, CAPACITY, null);
        TenantSimulation.Result heavy = run(600, CAPACITY, null);
        TenantSimulation.Result heavyDelay = run(600, null, null);

        assertThat(light.othersWaitPercentile(99)).isLessThan(Duration.ofMillis(1));
        // Past the capacity every call slows down, the global limit of 64 fills and calls wait for it.
        assertThat(heavy.othersWaitPercentile(99)).isGreaterThan(Duration.ofMillis(50));
        assertThat(heavy.downstreamPeakInFlight()).isEqualTo(64);
        // The same load on a pure delay never fills the global limit: 12 calls' worth of work, no wait at all.
        assertThat(heavyDelay.othersWaitPercentile(99)).isEqualTo(Duration.ZERO);
        assertThat(heavyDelay.downstreamPeakInFlight()).isLessThan(64);
    }

    @Test
    void anAdaptiveGlobalLimitFollowsTheCapacityWhereAFixedOneOverloadsIt() {
        TenantSimulation.Result fixed = run(600, CAPACITY, null);
        TenantSimulation.Result adaptive = run(600, CAPACITY, AdaptiveLimit.selfTuning().build());

        assertThat(fixed.globalLimit()).isEqualTo(new TenantSimulation.LimitRange(64, 64, 64.0));
        assertThat(adaptive.globalLimit().mean()).isBetween(CAPACITY / 2.0, 2.0 * CAPACITY);
        assertThat(adaptive.downstreamPeakInFlight()).isLessThan(fixed.downstreamPeakInFlight());
        long served = adaptive.tenants().stream().mapToLong(TenantSimulation.TenantOutcome::served).sum();
        long servedFixed = fixed.tenants().stream().mapToLong(TenantSimulation.TenantOutcome::served).sum();
        assertThat(served).as("goodput with the limit at the capacity, against a collapsed downstream")
                .isGreaterThan(servedFixed);
    }
}
