package dev.bulwark.cli.internal.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Limit line's "stayed from X s on" is the first moment from which the limit never left its final band. */
class LimitTraceTest {

    private static List<Sample> everyHalfSecond(int... limits) {
        List<Sample> timeline = new ArrayList<>();
        for (int i = 0; i < limits.length; i++) {
            timeline.add(new Sample(i * 500_000_000L, 0, 0, 0, 0, 0, 0, 0, limits[i]));
        }
        return timeline;
    }

    @Test
    void theLimitStaysInItsBandFromTheSampleAfterTheLastOneOutsideIt() {
        // 0 .. 3 s; the final window (the last second) holds 20 only; 10 at 0.5 s is the last sample outside it.
        LimitTrace trace = LimitTrace.of(everyHalfSecond(5, 10, 20, 20, 20, 20, 20), 3.0).orElseThrow();

        assertThat(trace.finalMin()).isEqualTo(20);
        assertThat(trace.settledAfterSeconds()).isEqualTo(1.0);
    }

    @Test
    void aLimitThatNeverLeavesItsBandStayedFromTheStart() {
        LimitTrace trace = LimitTrace.of(everyHalfSecond(20, 21, 20, 21, 20, 21, 20), 3.0).orElseThrow();

        assertThat(trace.settledAfterSeconds()).isEqualTo(0.0);
    }
}
