package dev.bulwark.internal.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import dev.bulwark.Permit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/** The release-once kit every release-once permit builds on: one release per permit, whoever races to close it. */
class ReleaseOncePermitTest {

    /** Records each release with its outcome. */
    private static final class Recording extends ReleaseOncePermit {
        final List<Permit.Outcome> releases = new CopyOnWriteArrayList<>();

        @Override
        protected void release(Outcome outcome) {
            assertThat(isReleased()).as("released reads true before the release runs").isTrue();
            releases.add(outcome);
        }
    }

    @Test
    void theFirstCloseReleasesWithItsOutcomeAndLaterClosesDoNothing() {
        Recording permit = new Recording();
        assertThat(permit.isReleased()).isFalse();

        permit.close(Permit.Outcome.DROPPED);
        permit.close();
        permit.close(Permit.Outcome.IGNORED);

        assertThat(permit.releases).containsExactly(Permit.Outcome.DROPPED);
        assertThat(permit.isReleased()).isTrue();
    }

    @Test
    void aNullOutcomeIsRefusedBeforeAndAfterTheRelease() {
        Recording permit = new Recording();
        assertThatNullPointerException().isThrownBy(() -> permit.close(null)).withMessage("outcome");
        assertThat(permit.releases).isEmpty();
        permit.close();
        assertThatNullPointerException().isThrownBy(() -> permit.close(null)).withMessage("outcome");
        assertThat(permit.releases).hasSize(1);
    }

    /** Eight threads released at once by a barrier: exactly one release, whatever the interleaving. */
    @RepeatedTest(50)
    void racingClosesReleaseExactlyOnce() throws Exception {
        Recording permit = new Recording();
        int threads = 8;
        CyclicBarrier start = new CyclicBarrier(threads);
        List<Thread> closers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Permit.Outcome outcome = Permit.Outcome.values()[i % Permit.Outcome.values().length];
            Thread closer = new Thread(() -> {
                try {
                    start.await();
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
                permit.close(outcome);
            });
            closer.start();
            closers.add(closer);
        }
        for (Thread closer : closers) {
            closer.join();
        }
        assertThat(permit.releases).hasSize(1);
        assertThat(permit.isReleased()).isTrue();
    }
}
