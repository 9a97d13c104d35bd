package dev.bulwark.testing;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadListener;
import dev.bulwark.CallOptions;
import dev.bulwark.CancellationSignal;
import dev.bulwark.DrainResult;
import dev.bulwark.Permit;
import dev.bulwark.Subscription;
import dev.bulwark.ThrowingSupplier;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * A {@link Bulkhead} that forwards everything to another one: a test overrides the methods it needs to stop or
 * observe (a foreign global bulkhead, as a cluster-wide one would be, so no in-process shortcut applies).
 */
public class ForwardingBulkhead implements Bulkhead {
    protected final Bulkhead delegate;

    public ForwardingBulkhead(Bulkhead delegate) {
        this.delegate = delegate;
    }

    @Override
    public <T, X extends Throwable> T call(ThrowingSupplier<? extends T, X> operation, CancellationSignal signal)
            throws X {
        return delegate.call(operation, signal);
    }

    @Override
    public <T> CompletableFuture<T> callAsync(Supplier<? extends CompletionStage<T>> operation,
                                              CancellationSignal signal) {
        return delegate.callAsync(operation, signal);
    }

    @Override
    public String name() {
        return delegate.name();
    }

    @Override
    public int maxConcurrency() {
        return delegate.maxConcurrency();
    }

    @Override
    public int maxQueue() {
        return delegate.maxQueue();
    }

    @Override
    public Optional<Duration> maxWait() {
        return delegate.maxWait();
    }

    @Override
    public int executingCount() {
        return delegate.executingCount();
    }

    @Override
    public int queuedCount() {
        return delegate.queuedCount();
    }

    @Override
    public Subscription addListener(BulkheadListener listener) {
        return delegate.addListener(listener);
    }

    @Override
    public void changeMaxConcurrency(int maxConcurrency) {
        delegate.changeMaxConcurrency(maxConcurrency);
    }

    @Override
    public void changeMaxQueue(int maxQueue) {
        delegate.changeMaxQueue(maxQueue);
    }

    @Override
    public void changeMaxWait(Duration maxWait) {
        delegate.changeMaxWait(maxWait);
    }

    @Override
    public Permit acquire(CancellationSignal signal) {
        return delegate.acquire(signal);
    }

    @Override
    public Optional<Permit> tryAcquire() {
        return delegate.tryAcquire();
    }

    @Override
    public CompletableFuture<Permit> acquireAsync(CancellationSignal signal) {
        return delegate.acquireAsync(signal);
    }

    @Override
    public <T, X extends Throwable> T call(CallOptions options, ThrowingSupplier<? extends T, X> operation)
            throws X {
        return delegate.call(options, operation);
    }

    @Override
    public <T> CompletableFuture<T> callAsync(CallOptions options,
                                              Supplier<? extends CompletionStage<T>> operation) {
        return delegate.callAsync(options, operation);
    }

    @Override
    public Permit acquireWith(CallOptions options) {
        return delegate.acquireWith(options);
    }

    @Override
    public Optional<Permit> tryAcquireWith(CallOptions options) {
        return delegate.tryAcquireWith(options);
    }

    @Override
    public CompletableFuture<Permit> acquireAsyncWith(CallOptions options) {
        return delegate.acquireAsyncWith(options);
    }

    @Override
    public DrainResult drain(Duration deadline) {
        return delegate.drain(deadline);
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public boolean isClosed() {
        return delegate.isClosed();
    }
}
