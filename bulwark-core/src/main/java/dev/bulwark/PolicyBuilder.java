package dev.bulwark;

import dev.bulwark.internal.Names;
import dev.bulwark.internal.util.Arguments;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What the builders of {@link Retry} and {@link Timeout} share: a name, listeners, a scheduler and a clock. Each
 * setter checks its argument at once and names it in the exception. Not thread-safe: configure on one thread, then
 * build. Package-private, so closed to users without {@code sealed}: naming its subclasses here would only make it
 * depend on the classes that depend on it.
 *
 * @param <B> the builder's own type, returned by every setter
 * @param <L> the policy's listener type
 */
abstract class PolicyBuilder<B extends PolicyBuilder<B, L>, L> {

    /** The prefix of the default name. */
    private final String kind;
    /** Set by {@link #name(String)}; {@code null}: a new default name at each build. */
    private @Nullable String name;
    final List<L> listeners = new ArrayList<>();
    Scheduler scheduler = Scheduler.shared();
    Ticker ticker = Ticker.system();

    /** @param kind the prefix of the default name, {@code kind-N} */
    PolicyBuilder(String kind) {
        this.kind = kind;
    }

    /**
     * Sets the name used in exceptions, events and metrics. Default: a new {@code retry-N} or {@code timeout-N} for
     * each build, so that two policies built by one builder never share a name.
     *
     * @param name a non-blank name
     * @return this builder
     * @throws NullPointerException when {@code name} is {@code null}
     * @throws IllegalArgumentException when {@code name} is blank
     */
    public B name(String name) {
        this.name = Arguments.requireName(name);
        return self();
    }

    /**
     * Adds a listener; several may be added and are called in the order added. A listener that throws is logged
     * and never disturbs the call.
     *
     * @param listener the listener
     * @return this builder
     * @throws NullPointerException when {@code listener} is {@code null}
     */
    public B listener(L listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
        return self();
    }

    /**
     * Sets the scheduler for timed work: a retry's asynchronous delays, a timeout's deadlines. Default:
     * {@link Scheduler#shared()}.
     *
     * @param scheduler the scheduler
     * @return this builder
     * @throws NullPointerException when {@code scheduler} is {@code null}
     */
    public B scheduler(Scheduler scheduler) {
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        return self();
    }

    /**
     * Sets the clock (for tests): it times a retry's synchronous delays and the elapsed times a timeout reports to
     * its listeners. Default: {@link Ticker#system()}.
     *
     * @param ticker the ticker
     * @return this builder
     * @throws NullPointerException when {@code ticker} is {@code null}
     */
    public B ticker(Ticker ticker) {
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        return self();
    }

    /** The name for a new policy: the one set, or a new {@code kind-N}. */
    final String nameForBuild() {
        return Names.orNext(name, kind);
    }

    @SuppressWarnings("unchecked")
    private B self() {
        // Sealed: every subclass is a PolicyBuilder of its own type.
        return (B) this;
    }
}
