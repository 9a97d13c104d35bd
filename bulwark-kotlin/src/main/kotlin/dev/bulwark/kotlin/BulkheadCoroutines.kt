/**
 * Coroutine adapters for [Bulkhead]: waiting for a slot suspends the coroutine instead of blocking its thread.
 */
@file:JvmName("BulkheadCoroutines")

package dev.bulwark.kotlin

import dev.bulwark.Bulkhead
import dev.bulwark.CancellationSignal
import dev.bulwark.Permit
import java.util.concurrent.CompletionException
import kotlin.coroutines.resume
import kotlinx.coroutines.suspendCancellableCoroutine

/**
 * Runs [block] while holding a slot of this bulkhead, suspending (not blocking) while the call waits in the queue.
 * The coroutine counterpart of [Bulkhead.call] and [Bulkhead.callAsync].
 *
 * - The slot is taken before [block] starts and released exactly once when it ends: on return, on any exception and
 *   on cancellation of the coroutine while [block] runs.
 * - Cancelling the coroutine while it waits in the queue removes it from the queue at once (its place goes to the
 *   next caller); [block] never runs, and the coroutine ends with a [kotlinx.coroutines.CancellationException].
 * - A refusal throws [dev.bulwark.BulkheadRejectedException] (the same instance the bulkhead made); [block] never
 *   runs. So does a failure of the bulkhead's scheduler to time the wait (`maxWait`): its exception, the same
 *   instance. [block]'s own exceptions pass through untouched.
 *
 * Thread-safe: call it from any number of coroutines on any dispatcher.
 *
 * It is not named `call`: Kotlin resolves a member before an extension, so `bulkhead.call { ... }` always means the
 * blocking Java member [Bulkhead.call], in which a suspending call does not compile.
 *
 * @param block the work to run under the bulkhead
 * @return what [block] returned
 */
suspend fun <T> Bulkhead.callSuspending(block: suspend () -> T): T {
    val permit = awaitPermit()
    try {
        return block()
    } finally {
        permit.close()
    }
}

/**
 * Takes a slot of this bulkhead, suspending while the call waits in the queue; the caller must [close][Permit.close]
 * the permit. Cancelling the coroutine while it waits removes it from the queue; a slot granted at the same instant is
 * released at once and passed on, never leaked.
 *
 * Whatever the bulkhead's future fails with is thrown as that same instance, never a copy (also under the coroutines
 * debug mode, whose stack-trace recovery would otherwise copy it).
 *
 * @return the permit holding the slot
 * @throws dev.bulwark.BulkheadRejectedException when the bulkhead refuses the call, for any
 *     [reason][dev.bulwark.Rejection.reason] (queue full, maximum wait passed, evicted, closed, ...)
 * @throws Throwable what the bulkhead's [scheduler][dev.bulwark.Scheduler] threw when it refused to time the wait
 *     (`maxWait`), the same instance
 */
suspend fun Bulkhead.awaitPermit(): Permit {
    val signal = CancellationSignal.create()
    val granted = acquireAsync(signal)
    val outcome = suspendCancellableCoroutine<Any> { continuation ->
        continuation.invokeOnCancellation { cause ->
            // Leaves the queue if still waiting; a permit granted meanwhile is released by the resume below.
            if (cause != null) signal.cancel(cause) else signal.cancel()
        }
        granted.whenComplete { permit, failure ->
            if (failure == null) {
                // If the coroutine was cancelled after the grant but before it resumed, the slot goes back at once.
                continuation.resume(permit) { _, unused, _ -> (unused as Permit).close() }
            } else {
                // Resumed as a value and thrown below, not resumed with the exception: resuming with it would let
                // the coroutines debug mode (on whenever assertions are) throw a copy instead of this instance.
                continuation.resume(Refused(unwrap(failure)))
            }
        }
    }
    if (outcome is Refused) throw outcome.failure
    return outcome as Permit
}

/** Why the bulkhead's future failed, carried through the resumption unchanged. */
private class Refused(val failure: Throwable)

private fun unwrap(failure: Throwable): Throwable =
    if (failure is CompletionException && failure.cause != null) failure.cause!! else failure
