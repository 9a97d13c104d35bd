/**
 * Reactor operators that apply Bulwark's policies to {@code Mono} and {@code Flux} without blocking a thread.
 *
 * <p>Only {@code dev.bulwark.reactor} is exported; {@code dev.bulwark.reactor.internal} is implementation.
 */
module dev.bulwark.reactor {
    requires transitive dev.bulwark;
    requires transitive reactor.core;
    requires transitive org.reactivestreams;

    exports dev.bulwark.reactor;
}
