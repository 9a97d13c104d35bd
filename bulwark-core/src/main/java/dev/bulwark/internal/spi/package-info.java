/**
 * What Bulwark's own bulkheads share, so that each outcome has one implementation: {@link
 * dev.bulwark.internal.spi.Outcomes} (refusal with the overflow handler, cancellations), {@link
 * dev.bulwark.internal.spi.WaiterFate} (a waiter's decided-once status and what ends its wait early), {@link
 * dev.bulwark.internal.spi.AsyncOperation} (starting an async operation that holds a slot and releasing it once),
 * {@link dev.bulwark.internal.spi.Arguments} (argument checks, worded alike everywhere), {@link
 * dev.bulwark.internal.spi.VarHandles}, {@link dev.bulwark.internal.spi.AdaptiveSampler} with {@link
 * dev.bulwark.internal.spi.AdaptiveTarget} (the adaptive limit's algorithms, run by a bulkhead outside core, which
 * makes them with {@code dev.bulwark.internal.adaptive.AdaptiveLimiters}), and
 * {@link dev.bulwark.internal.spi.MillisText} (a wait in milliseconds in a message, never {@code 0} for a wait that
 * happened).
 *
 * <p>Not API: {@code module-info} exports this package only to Bulwark's own modules: the one that implements a
 * bulkhead ({@code dev.bulwark.redis}) and the Spring binding (for {@code MillisText}); it may change in any
 * release. The metrics bindings' shared code is in {@code dev.bulwark.internal.binding}.
 */
package dev.bulwark.internal.spi;
