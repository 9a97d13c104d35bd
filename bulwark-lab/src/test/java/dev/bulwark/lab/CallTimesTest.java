package dev.bulwark.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.bulwark.cli.internal.sim.Distribution;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The lab's call timing gives a window's mean and the spread of the log-normal that fits it, and the model turns
 * them back into a service time with that mean.
 */
class CallTimesTest {

    @Test
    void aWindowHasTheMeanAndTheLogSpreadOfItsCallsOnly() {
        CallTimes times = new CallTimes();
        times.record(999_000_000L);   // before the window
        CallTimes.Snapshot before = times.snapshot();
        SplittableRandom random = new SplittableRandom(7);
        double sigma = 0.4;
        double sum = 0;
        int n = 20_000;
        for (int i = 0; i < n; i++) {
            long nanos = Math.round(20e6 * Math.exp(sigma * gaussian(random)));
            sum += nanos;
            times.record(nanos);
        }
        CallTimes.Snapshot window = times.snapshot().since(before);

        assertThat(window.calls()).isEqualTo(n);
        assertThat(window.meanMillis()).isCloseTo(sum / n / 1e6, within(1e-6));
        assertThat(window.logSigma()).isCloseTo(sigma, within(0.01));
    }

    @Test
    void callsThatAllTakeAsLongHaveNoSpread() {
        CallTimes times = new CallTimes();
        for (int i = 0; i < 10; i++) {
            times.record(5_000_000L);
        }

        assertThat(times.snapshot().logSigma()).isCloseTo(0, within(1e-6));
        assertThat(times.snapshot().meanMillis()).isEqualTo(5.0);
        assertThat(new CallTimes().snapshot().logSigma()).isZero();
    }

    @Test
    void theModelsServiceTimeKeepsTheMeasuredMean() {
        Distribution spread = ServiceModel.serviceTime(20, 0.8);
        Distribution none = ServiceModel.serviceTime(20, 0);

        assertThat(spread).isInstanceOf(Distribution.LogNormal.class);
        assertThat(spread.meanNanos()).isCloseTo(20e6, within(1e3));
        assertThat(none).isEqualTo(new Distribution.Fixed(java.time.Duration.ofMillis(20)));
    }

    /** A standard normal draw (Box-Muller), so that the test does not depend on the JDK's own generator. */
    private static double gaussian(SplittableRandom random) {
        return Math.sqrt(-2 * Math.log(1 - random.nextDouble())) * Math.cos(2 * Math.PI * random.nextDouble());
    }
}
