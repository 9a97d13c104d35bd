/**
 * What Bulwark's own bulkheads share, so that each outcome has one implementation: {@link
 * dev.bulwark.internal.spi.Outcomes} (refusal with the overflow handler, cancellations), {@link
 * dev.bulwark.internal.spi.WaiterFate} (a waiter's decided-once status and what ends its wait early), {@link
 * dev.bulwark.internal.spi.AsyncOperation} (starting an async operation that holds a slot and releasing it once),
 * {@link dev.bulwark.internal.spi.Arguments} (argument checks, worded alike everywhere), {@link
 * dev.bulwark.internal.spi.VarHandles}, and {@link dev.bulwark.internal.spi.AdaptiveSampler} with {@link
 * dev.bulwark.internal.spi.AdaptiveTarget} (the adaptive limit's algorithms, run by a bulkhead outside core).
 *
 * <p>Not API: {@code module-info} exports this package only to Bulwark's own modules that implement a bulkhead
 * ({@code dev.bulwark.redis}); it may change in any release.
 */
package dev.bulwark.internal.spi;
