package dev.bulwark.internal.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import dev.bulwark.Subscription;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import dev.bulwark.testing.CapturedLog;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The one listener fan-out: order, isolation, the logging of a listener that throws (WARNING once per attachment,
 * then DEBUG, to the owner's logger, naming the owner and the event) and the copy-on-write list.
 */
class ListenerArrayTest {

    private static final String LOGGER = "dev.bulwark.test.ListenerArrayTest";

    private CapturedLog log;

    @BeforeEach
    void captureTheLog() {
        log = CapturedLog.start(LOGGER);
    }

    private List<LogRecord> logged() {
        return log.matching("Listener ", " threw on ");
    }

    @AfterEach
    void releaseTheLog() {
        log.close();
    }

    private static Consumer<String> recorder(String name, List<String> seen) {
        return event -> seen.add(name + ":" + event);
    }

    @Test
    void tellsEveryListenerInOrderAndAThrowingOneDisturbsNeitherTheCallerNorTheOthers() {
        List<String> seen = new ArrayList<>();
        IllegalStateException broken = new IllegalStateException("broke");
        Consumer<String> throwing = event -> {
            seen.add("throwing:" + event);
            throw broken;
        };
        ListenerArray<Consumer<String>> listeners = ListenerArray.of(LOGGER, "bulkhead ", "db",
                List.of(recorder("a", seen), throwing, recorder("c", seen)));

        listeners.each("admitted", listener -> listener.accept("one"));
        listeners.each("released", Consumer::accept, "two");
        listeners.each("rejected", listener -> listener.accept("three"));

        assertThat(seen).containsExactly("a:one", "throwing:one", "c:one", "a:two", "throwing:two", "c:two",
                "a:three", "throwing:three", "c:three");
        assertThat(logged()).hasSize(3);
        LogRecord first = logged().get(0);
        assertThat(first.getLevel()).isEqualTo(Level.WARNING);
        assertThat(first.getLoggerName()).isEqualTo(LOGGER);
        assertThat(first.getThrown()).isSameAs(broken);
        assertThat(first.getMessage()).isEqualTo("Listener " + throwing + " of bulkhead 'db' threw on 'admitted'; the"
                + " call is unaffected (later failures are logged at DEBUG)");
        assertThat(logged().subList(1, 3)).allSatisfy(record -> {
            assertThat(record.getLevel().intValue()).isLessThan(Level.INFO.intValue());
            assertThat(record.getMessage()).doesNotContain("later failures");
        });
        assertThat(logged().get(1).getMessage()).contains("threw on 'released'");
        assertThat(logged().get(2).getMessage()).contains("threw on 'rejected'");
    }

    @Test
    void eachAttachmentHasItsOwnFirstFailureWhichSurvivesCopies() {
        Consumer<String> throwing = event -> {
            throw new IllegalStateException(event);
        };
        ListenerFailureLog second = new ListenerFailureLog();
        ListenerArray<Consumer<String>> once = ListenerArray.of(LOGGER, "", "r", List.of(throwing));
        ListenerArray<Consumer<String>> twice = once.with(throwing, second);

        once.each("succeeded", listener -> listener.accept("x"));
        twice.each("succeeded", listener -> listener.accept("x"));
        ListenerArray<Consumer<String>> copied = twice.without(second).with(throwing, new ListenerFailureLog());
        copied.each("failed", listener -> listener.accept("x"));

        assertThat(logged()).extracting(LogRecord::getLevel).containsExactly(
                Level.WARNING, // the first attachment's first failure, told through `once`
                Level.FINE, Level.WARNING, // through `twice`: the first attachment again, then the second's first
                Level.FINE, Level.WARNING); // the first, copied on; a new attachment of the same listener
        assertThat(logged().get(0).getMessage()).contains(" of 'r' threw on 'succeeded'");
    }

    @Test
    void copiesAreNewAndDetachByAttachmentKeepingTheOrder() {
        List<String> seen = new ArrayList<>();
        Consumer<String> a = recorder("a", seen);
        Consumer<String> b = recorder("b", seen);
        ListenerFailureLog firstA = new ListenerFailureLog();
        ListenerFailureLog secondA = new ListenerFailureLog();
        ListenerArray<Consumer<String>> empty = ListenerArray.of(LOGGER, "", "p", List.of());
        ListenerArray<Consumer<String>> full = empty.with(a, firstA).with(b, new ListenerFailureLog()).with(a, secondA);

        assertThat(empty.isEmpty()).isTrue();
        assertThat(empty.size()).isZero();
        assertThat(full.size()).isEqualTo(3);
        ListenerArray<Consumer<String>> withoutSecondA = full.without(secondA);
        assertThat(withoutSecondA.without(secondA)).as("already detached").isSameAs(withoutSecondA);
        assertThat(full.without(new ListenerFailureLog())).isSameAs(full);

        withoutSecondA.each("e", listener -> listener.accept("1"));
        full.without(firstA).each("e", listener -> listener.accept("2"));
        full.each("e", listener -> listener.accept("3"));
        assertThat(full.without(firstA).without(secondA).size()).isEqualTo(1);
        assertThat(full.without(firstA).without(secondA).get(0)).isSameAs(b);

        assertThat(seen).containsExactly("a:1", "b:1", "b:2", "a:2", "a:3", "b:3", "a:3");
        assertThat(empty.with(a, new ListenerFailureLog()).without(firstA).size()).isEqualTo(1);
        ListenerFailureLog only = new ListenerFailureLog();
        assertThat(empty.with(a, only).without(only).isEmpty()).isTrue();
    }

    @Test
    void refusesNullListeners() {
        ListenerArray<Consumer<String>> empty = ListenerArray.of(LOGGER, "", "p", List.of());
        assertThatNullPointerException().isThrownBy(() -> empty.with(null, new ListenerFailureLog()))
                .withMessage("listener");
        List<Consumer<String>> withNull = new ArrayList<>();
        withNull.add(null);
        assertThatNullPointerException().isThrownBy(() -> ListenerArray.of(LOGGER, "", "p", withNull))
                .withMessage("listener");
        ListenerList<Consumer<String>> list = new ListenerList<>(LOGGER, "", "p", List.of());
        assertThatNullPointerException().isThrownBy(() -> list.add(null)).withMessage("listener");
    }

    @Test
    void aListenerListAttachesAndDetachesAtRunTime() {
        List<String> seen = new ArrayList<>();
        ListenerList<Consumer<String>> list = new ListenerList<>(LOGGER, "", "t", List.of(recorder("built", seen)));
        assertThat(list.isEmpty()).isFalse();
        Consumer<String> twice = recorder("twice", seen);
        Subscription first = list.add(twice);
        Subscription middle = list.add(recorder("middle", seen));
        Subscription second = list.add(twice);

        list.each("e", listener -> listener.accept("1"));
        first.close();
        first.close();
        list.each("e", Consumer::accept, "2");
        middle.close();
        second.close();
        list.each("e", listener -> listener.accept("3"));

        assertThat(seen).containsExactly("built:1", "twice:1", "middle:1", "twice:1",
                "built:2", "middle:2", "twice:2", "built:3");

        ListenerList<Consumer<String>> none = new ListenerList<>(LOGGER, "", "t", List.of());
        assertThat(none.isEmpty()).isTrue();
        Subscription only = none.add(recorder("only", seen));
        assertThat(none.isEmpty()).isFalse();
        only.close();
        assertThat(none.isEmpty()).isTrue();
    }
}
