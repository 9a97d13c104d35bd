package dev.bulwark.internal.stats;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.Priority;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The series both metrics back ends publish from a tally: every priority and outcome, read and tagged alike. */
class PriorityTallyTest {

    @Test
    void everyCombinationIsReadByCountAndTaggedInLowerCase() {
        AtomicLong all = new AtomicLong();
        PriorityTally tally = new PriorityTally(all::get);
        tally.admitted(Priority.CRITICAL);
        all.incrementAndGet();
        tally.admitted(Priority.NORMAL);
        all.incrementAndGet();
        all.incrementAndGet(); // a NORMAL admission reported without a priority
        tally.rejected(Priority.LOW);
        tally.cancelled(Priority.HIGH);
        tally.cancelled(Priority.HIGH);

        assertThat(tally.count(Priority.CRITICAL, PriorityTally.Outcome.ADMITTED)).isEqualTo(1);
        assertThat(tally.count(Priority.NORMAL, PriorityTally.Outcome.ADMITTED)).isEqualTo(2);
        assertThat(tally.count(Priority.LOW, PriorityTally.Outcome.REJECTED)).isEqualTo(1);
        assertThat(tally.count(Priority.HIGH, PriorityTally.Outcome.CANCELLED)).isEqualTo(2);
        long total = 0;
        for (Priority priority : Priority.values()) {
            for (PriorityTally.Outcome outcome : PriorityTally.Outcome.values()) {
                total += tally.count(priority, outcome);
            }
        }
        assertThat(total).isEqualTo(6);
        assertThat(PriorityTally.Outcome.values()).extracting(PriorityTally.Outcome::tag)
                .containsExactly("admitted", "rejected", "cancelled");
        assertThat(PriorityTally.tag(Priority.CRITICAL)).isEqualTo("critical");
    }
}
