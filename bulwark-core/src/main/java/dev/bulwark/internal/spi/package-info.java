/**
 * The kit Bulwark's own bulkheads build on, so that each outcome has one implementation: {@link
 * dev.bulwark.internal.spi.Outcomes} (refusal with the overflow handler, cancellations), {@link
 * dev.bulwark.internal.spi.WaiterFate} (a waiter's decided-once status and what ends its wait early), {@link
 * dev.bulwark.internal.spi.WaiterFuture}, {@link dev.bulwark.internal.spi.AsyncOperation} (starting an async
 * operation that holds a slot and releasing it once), {@link dev.bulwark.internal.spi.ReleaseOncePermit} (a permit
 * released once, whoever races to close it), {@link dev.bulwark.internal.spi.FakeTickerWakeUp} (a parked waiter's
 * wake-up under a test's fake ticker), {@link dev.bulwark.internal.spi.OutcomeClassifier}, and {@link
 * dev.bulwark.internal.spi.AdaptiveSampler} with {@link dev.bulwark.internal.spi.AdaptiveTarget} (the adaptive
 * limit's algorithms, run by a bulkhead outside core, which makes them with {@code
 * dev.bulwark.internal.adaptive.AdaptiveLimiters}). Plain utilities are in {@code dev.bulwark.internal.util}.
 *
 * <p>Not API: {@code module-info} exports this package only to the module that implements a bulkhead of its own
 * ({@code dev.bulwark.redis}); it may change in any release. The metrics bindings' shared code is in {@code
 * dev.bulwark.internal.binding}.
 */
package dev.bulwark.internal.spi;
