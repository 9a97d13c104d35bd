package dev.bulwark.cli.internal.compare;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.function.LongToIntFunction;
import org.junit.jupiter.api.Test;

/**
 * How {@code bulwark compare} measures settling after a capacity step: the first moment from which the limit stays
 * within 25% of the new capacity for at least 90% of the rest of the phase. Driven by a scripted limit.
 */
class CompareRunSettleTest {

    private static final long SECOND = 1_000_000_000L;

    /** A gate that admits every call and reports a limit scripted by virtual time. */
    private static Contender scripted(LongToIntFunction limitAt) {
        return new Contender("scripted", "test", (start, clock) -> new Contender.Gate() {
            @Override
            public Contender.Ticket tryEnter() {
                return dropped -> { };
            }

            @Override
            public int limit() {
                return limitAt.applyAsInt(clock.read());
            }
        });
    }

    /** c20-steps over 6 s: capacity 20, then 10 from 2 s, then 30 from 4 s. */
    private static double[] settle(LongToIntFunction limitAt) {
        return new CompareRun(CompareScenario.named("c20-steps"), 6 * SECOND, 1L).run(scripted(limitAt))
                .settleSeconds();
    }

    @Test
    void aLimitThatPassesThroughTheBandAndComesBackLaterSettlesWhenItComesBack() {
        double[] settle = settle(t -> t < 2 * SECOND ? 20 : t < 2_200_000_000L ? 11 : t < 3 * SECOND ? 20
                : t < 4 * SECOND ? 10 : 30);

        assertThat(settle[0]).isCloseTo(1.0, org.assertj.core.data.Offset.offset(0.05));
        assertThat(settle[1]).isCloseTo(0.0, org.assertj.core.data.Offset.offset(0.05));
    }

    @Test
    void briefExcursionsDoNotUndoSettlingButWanderingOffDoes() {
        // Down-step: settles at 2.5 s, then one 100 ms dip to 4 (a re-measurement). Up-step: reaches 30 at once
        // but wanders off to 15 for the second half of the phase.
        double[] settle = settle(t -> t < 2 * SECOND ? 20 : t < 2_500_000_000L ? 20
                : (t >= 3 * SECOND && t < 3_100_000_000L) ? 4 : t < 4 * SECOND ? 10 : t < 5 * SECOND ? 30 : 15);

        assertThat(settle[0]).isCloseTo(0.5, org.assertj.core.data.Offset.offset(0.05));
        assertThat(settle[1]).isNaN();
    }
}
