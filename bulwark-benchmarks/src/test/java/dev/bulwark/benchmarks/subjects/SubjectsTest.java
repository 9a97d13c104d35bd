package dev.bulwark.benchmarks.subjects;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Every subject answers to its name and runs work; a full one refuses in its own way. */
class SubjectsTest {

    @Test
    void everySubjectRunsWorkAndRefusesWhenFull() {
        for (String name : Subjects.NAMES) {
            Subject subject = Subjects.create(name, SubjectSpec.refusing(1));

            assertThat(subject.name()).isEqualTo(name);
            assertThat(subject.call(Work.returningResult())).as(name).isSameAs(Work.RESULT);
            CompletableFuture<Object> async = subject.callAsync(AsyncWork.alreadyCompleted());
            assertThat(async).as(name).isCompletedWithValue(Work.RESULT);

            try (Subject.Slot held = subject.occupy()) {
                assertThat(subject.isRefusal(subject.call(Work.returningResult()))).as(name).isTrue();
                assertThatThrownBy(subject::occupy).as(name).isInstanceOf(IllegalStateException.class);
            }
        }
    }

    @Test
    void unknownNamesAreRefusedWithTheKnownOnes() {
        assertThatThrownBy(() -> Subjects.create("hystrix", SubjectSpec.refusing(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'hystrix'")
                .hasMessageContaining(Subjects.BULWARK);
    }
}
