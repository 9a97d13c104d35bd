package dev.bulwark.spring.internal;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the dispatches and completions asked of a suspended request, so that the forced-interleaving tests of
 * {@link ServletAdmission} can check each happens exactly as often as the state machine promises. Only the
 * calls the admission makes are supported.
 */
final class RecordingAsyncContext implements AsyncContext {
    final AtomicInteger dispatches = new AtomicInteger();
    final AtomicInteger completions = new AtomicInteger();

    @Override
    public void dispatch() {
        dispatches.incrementAndGet();
    }

    @Override
    public void complete() {
        completions.incrementAndGet();
    }

    @Override
    public ServletRequest getRequest() {
        return null; // Servlet 6.0's AsyncEvent reads it; the admission never does on error or completion
    }

    @Override
    public ServletResponse getResponse() {
        return null;
    }

    @Override
    public boolean hasOriginalRequestAndResponse() {
        return true;
    }

    @Override
    public void dispatch(String path) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void dispatch(ServletContext context, String path) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void start(Runnable run) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void addListener(AsyncListener listener) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void addListener(AsyncListener listener, ServletRequest request, ServletResponse response) {
        throw new UnsupportedOperationException();
    }

    @Override
    public <T extends AsyncListener> T createListener(Class<T> type) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void setTimeout(long timeout) {
        throw new UnsupportedOperationException();
    }

    @Override
    public long getTimeout() {
        return 0;
    }
}
