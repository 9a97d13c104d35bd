package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.bulwark.testing.FakeTicker;
import dev.bulwark.testing.ManualScheduler;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

/** Issue 3, behaviour 7: fallback values, filters, and type safety. */
class FallbackTest {

    @Test
    void aHandledRejectionOrTimeoutBecomesTheValue() {
        Bulkhead bulkhead = Bulkhead.of(1);
        Permit held = bulkhead.acquire();
        Fallback<String> fallback = Fallback.of("busy");

        assertThat(fallback.call(() -> bulkhead.call(() -> "served"))).isEqualTo("busy");

        FakeTicker ticker = new FakeTicker();
        ManualScheduler scheduler = new ManualScheduler(ticker);
        CompletableFuture<String> slow = new CompletableFuture<>();
        CompletableFuture<String> timedOut = Fallback.of("late").callAsync(() -> Timeout.builder()
                .timeout(Duration.ofMillis(10)).scheduler(scheduler).build().callAsync(() -> slow));
        scheduler.advance(Duration.ofMillis(10));
        assertThat(timedOut).isCompletedWithValue("late");
        held.close();
    }

    @Test
    void theFunctionSeesTheFailure() throws Exception {
        Fallback<String> fallback = Fallback.to(failure -> "fell back after " + failure.getMessage());
        assertThat(fallback.call(() -> {
            throw new IOException("disk full");
        })).isEqualTo("fell back after disk full");
    }

    @Test
    void unhandledFailuresPassThroughUntouched() {
        IllegalStateException failure = new IllegalStateException("not mine");
        Fallback<String> fallback = Fallback.of("busy").handle(BulkheadRejectedException.class);

        assertThat(catchThrowable(() -> fallback.call(() -> {
            throw failure;
        }))).isSameAs(failure);
        Error error = new AssertionError("fatal");
        assertThat(catchThrowable(() -> Fallback.of("x").call(() -> {
            throw error;
        }))).isSameAs(error);
        CancellationException cancelled = new CancellationException("gone");
        assertThat(catchThrowable(() -> Fallback.of("x").call(() -> {
            throw cancelled;
        }))).isSameAs(cancelled);
    }

    @Test
    void anInterruptedExceptionPassesThroughByDefaultButIsHandledWhenListed() throws Exception {
        InterruptedException interrupt = new InterruptedException("shutdownNow");

        assertThat(catchThrowable(() -> Fallback.of("busy").call(() -> {
            throw interrupt;
        }))).isSameAs(interrupt);
        assertThat(Fallback.of("busy").handle(InterruptedException.class).call(() -> {
            throw interrupt;
        })).isEqualTo("busy");
    }

    @Test
    void checkedExceptionsKeepTheirType() {
        IOException failure = new IOException("io");
        IOException caught = null;
        try {
            Fallback.of("x").handle(IllegalStateException.class).call(() -> {
                throw failure;
            });
        } catch (IOException e) {
            caught = e;
        }
        assertThat(caught).isSameAs(failure);
    }

    @Test
    void handleIfSelectsAndOnFallbackIsTold() throws Exception {
        List<Throwable> told = new ArrayList<>();
        Fallback<Integer> fallback = Fallback.of(-1).handleIf(e -> e.getMessage().startsWith("soft"))
                .onFallback(told::add);
        IOException soft = new IOException("soft failure");

        assertThat(fallback.call(() -> {
            throw soft;
        })).isEqualTo(-1);
        assertThat(catchThrowable(() -> fallback.call(() -> {
            throw new IOException("hard failure");
        }))).hasMessage("hard failure");
        assertThat(told).containsExactly(soft);
    }

    @Test
    void aHandleIfPredicateThatThrowsAnErrorCountsAsNoOnBothPaths() {
        Fallback<String> fallback = Fallback.of("fb").handleIf(e -> {
            throw new AssertionError("predicate broke");
        });
        IOException own = new IOException("own");

        assertThat(catchThrowable(() -> fallback.call(() -> {
            throw own;
        }))).isSameAs(own);
        CompletableFuture<String> call = fallback.callAsync(() -> CompletableFuture.failedFuture(own));
        assertThat(call).isCompletedExceptionally();
        assertThat(call.handle((value, failure) -> failure).join()).isSameAs(own);
    }

    @Test
    void asyncHandledAndUnhandled() {
        IllegalStateException unhandled = new IllegalStateException("x");
        Fallback<String> fallback = Fallback.of("fb").handle(IOException.class);

        assertThat(fallback.callAsync(() -> CompletableFuture.failedFuture(new IOException()))).isCompletedWithValue(
                "fb");
        assertThat(fallback.callAsync(() -> CompletableFuture.failedFuture(unhandled)).handle((v, e) -> e).join())
                .isSameAs(unhandled);
        assertThat(fallback.callAsync(() -> CompletableFuture.completedFuture("ok"))).isCompletedWithValue("ok");
    }

    @Test
    void aCancelledSignalIsNeverTurnedIntoAValue() {
        CancellationSignal signal = CancellationSignal.create();
        signal.cancel();
        assertThat(catchThrowable(() -> Fallback.of("x").call(() -> "y", signal)))
                .isInstanceOf(CancellationException.class);
    }

    @Test
    void badArgumentsFailFast() {
        assertThatThrownBy(() -> Fallback.to(null)).hasMessage("function");
        assertThatThrownBy(() -> Fallback.of(1).handle()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Fallback.of(1).handleIf(null)).hasMessage("predicate");
        assertThatThrownBy(() -> Fallback.of(1).call(null)).hasMessage("operation");
    }

    @Test
    void aFallbackValueOfTheWrongTypeDoesNotCompile() throws Exception {
        assertThat(compiles("Fallback<String> f = Fallback.of(\"busy\"); String s = f.call(() -> \"x\");")).isTrue();
        assertThat(compiles("Fallback<String> f = Fallback.of(42);")).isFalse();
        assertThat(compiles("Integer i = Fallback.of(\"busy\").call(() -> 1);")).isFalse();
        assertThat(compiles("Fallback<Integer> f = Fallback.to(e -> \"text\");")).isFalse();
    }

    private static boolean compiles(String statements) throws IOException {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        String source = "import dev.bulwark.*;\nclass Probe { void probe() throws Exception { " + statements + " } }";
        JavaFileObject file = new SimpleJavaFileObject(URI.create("string:///Probe.java"), JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return source;
            }
        };
        Path out = Files.createTempDirectory("probe");
        return compiler.getTask(null, null, diagnostic -> { }, List.of("-classpath", "target/classes", "-d",
                out.toString()), null, List.of(file)).call();
    }
}
