package dev.bulwark.kotlin

import dev.bulwark.Bulkhead
import dev.bulwark.BulkheadListener
import dev.bulwark.BulkheadRejectedException
import java.util.concurrent.atomic.AtomicInteger
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.async
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.yield
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.Test

/** Issue 10: the coroutine adapter suspends instead of blocking and cancels a queued waiter. */
class BulkheadCoroutinesTest {

    private class Releases : BulkheadListener {
        val released = AtomicInteger()
        val cancelled = AtomicInteger()

        override fun released(executionNanos: Long) {
            released.incrementAndGet()
        }

        override fun cancelled(waitedNanos: Long) {
            cancelled.incrementAndGet()
        }
    }

    private val releases = Releases()
    private val bulkhead = Bulkhead.builder().name("kotlin").maxConcurrency(1).maxQueue(2).listener(releases).build()

    @Test
    fun aSuspendingBlockRunsUnderTheBulkhead() = runBlocking<Unit> {
        val result = bulkhead.callSuspending {
            delay(1)
            "stock:${bulkhead.executingCount()}"
        }

        assertThat(result).isEqualTo("stock:1")
        assertThat(bulkhead.executingCount()).isZero()
        assertThat(releases.released).hasValue(1)
    }

    @Test
    fun aWaitingCoroutineSuspendsOnTheSameThreadAsTheHolder() = runBlocking<Unit> {
        // runBlocking has one thread: if waiting blocked it, the holder could never finish and this would hang.
        val gate = CompletableDeferred<Unit>()
        val holder = async { bulkhead.callSuspending { gate.await(); "holder" } }
        yield()
        val waiter = async { bulkhead.callSuspending { "waiter" } }
        yield()
        assertThat(bulkhead.queuedCount()).isEqualTo(1)

        gate.complete(Unit)

        assertThat(holder.await()).isEqualTo("holder")
        assertThat(waiter.await()).isEqualTo("waiter")
        assertThat(releases.released).hasValue(2)
    }

    @Test
    fun cancellingAQueuedCoroutineRemovesTheWaiterAndReleasesNothingTwice() = runBlocking<Unit> {
        val gate = CompletableDeferred<Unit>()
        val holder = launch { bulkhead.callSuspending { gate.await() } }
        yield()
        val ran = AtomicInteger()
        val queued = launch(start = CoroutineStart.UNDISPATCHED) { bulkhead.callSuspending { ran.incrementAndGet() } }
        assertThat(bulkhead.queuedCount()).isEqualTo(1)

        queued.cancel()
        queued.join()

        assertThat(bulkhead.queuedCount()).isZero()
        assertThat(releases.cancelled).hasValue(1)
        gate.complete(Unit)
        holder.join()
        assertThat(ran).hasValue(0)
        assertThat(bulkhead.executingCount()).isZero()
        assertThat(releases.released).hasValue(1)
    }

    @Test
    fun cancellingWhileTheBlockRunsReleasesTheSlotOnce() = runBlocking<Unit> {
        val started = CompletableDeferred<Unit>()
        val running = launch {
            bulkhead.callSuspending {
                started.complete(Unit)
                delay(Long.MAX_VALUE)
            }
        }
        started.await()

        running.cancel()
        running.join()

        assertThat(bulkhead.executingCount()).isZero()
        assertThat(releases.released).hasValue(1)
    }

    @Test
    fun aRefusalAndTheBlocksOwnExceptionPassThroughUntouched() {
        val full = Bulkhead.of(1)
        val boom = IllegalStateException("boom")

        runBlocking {
            val gate = CompletableDeferred<Unit>()
            val holder = launch(start = CoroutineStart.UNDISPATCHED) { full.callSuspending { gate.await() } }
            assertThatThrownBy { runBlocking { full.callSuspending { error("never runs") } } }
                .isInstanceOf(BulkheadRejectedException::class.java)
            gate.complete(Unit)
            holder.join()
        }
        assertThatThrownBy { runBlocking { full.callSuspending { throw boom } } }.isSameAs(boom)
        assertThat(full.executingCount()).isZero()
    }

    @Test
    fun coroutineCancellationIsNotMistakenForARefusal() {
        val job = runBlocking {
            val gate = CompletableDeferred<Unit>()
            launch(start = CoroutineStart.UNDISPATCHED) { bulkhead.callSuspending { gate.await() } }
            val queued = async(start = CoroutineStart.UNDISPATCHED) { runCatching { bulkhead.callSuspending { "x" } } }
            queued.cancel()
            gate.complete(Unit)
            queued
        }
        assertThat(job.isCancelled).isTrue()
        assertThatThrownBy { runBlocking { job.await() } }.isInstanceOf(CancellationException::class.java)
    }

    @Test
    fun aSchedulerFailureWhileQueuedIsThrownAsTheSameInstance() = runBlocking<Unit> {
        // Surefire runs with assertions on, so the coroutines debug mode (stack-trace recovery) is on here.
        val refused = java.util.concurrent.RejectedExecutionException("timer shut down")
        val timed = Bulkhead.builder().maxConcurrency(1).maxQueue(1).maxWait(java.time.Duration.ofSeconds(1))
            .scheduler { _, _, _ -> throw refused }.build()
        val gate = CompletableDeferred<Unit>()
        val holder = launch(start = CoroutineStart.UNDISPATCHED) { timed.callSuspending { gate.await() } }

        val outcome = runCatching { timed.callSuspending { "never runs" } }

        assertThat(outcome.exceptionOrNull()).isSameAs(refused)
        assertThat(timed.queuedCount()).isZero()
        gate.complete(Unit)
        holder.join()
        assertThat(timed.executingCount()).isZero()
    }
}
