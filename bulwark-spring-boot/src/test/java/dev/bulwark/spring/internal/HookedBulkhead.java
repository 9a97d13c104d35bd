package dev.bulwark.spring.internal;

import dev.bulwark.Bulkhead;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A real bulkhead with a hook that runs right after each {@code callAsync} returns to the filter, before the filter
 * looks at the outcome: the one instant a test cannot otherwise reach, between a request joining the queue and the
 * filter deciding whether it was admitted at once. A test frees the slot (or evicts the request) there, on another
 * thread, to force the ordering a race produces only now and then.
 */
final class HookedBulkhead {

    private HookedBulkhead() {
    }

    /**
     * Wraps a bulkhead.
     *
     * @param real the bulkhead every call goes to
     * @param hook what runs after each {@code callAsync}, once: taken when it runs, so later calls run nothing
     * @return the wrapping bulkhead
     */
    static Bulkhead wrap(Bulkhead real, AtomicReference<Runnable> hook) {
        InvocationHandler handler = (proxy, method, arguments) -> {
            Object result;
            try {
                result = method.invoke(real, arguments);
            } catch (InvocationTargetException thrown) {
                throw thrown.getCause();
            }
            if (method.getName().equals("callAsync")) {
                Runnable once = hook.getAndSet(null);
                if (once != null) {
                    once.run();
                }
            }
            return result;
        };
        return (Bulkhead) Proxy.newProxyInstance(HookedBulkhead.class.getClassLoader(), new Class<?>[] {Bulkhead.class},
                handler);
    }

    /**
     * Runs an action on a new thread and waits for it to end: the free or the eviction comes from another request's
     * thread, as it does in a server.
     *
     * @param name the thread's name
     * @param action what it does
     */
    static void onAnotherThread(String name, Runnable action) {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread thread = new Thread(() -> {
            try {
                action.run();
            } catch (Throwable thrown) {
                failure.set(thrown);
            }
        }, name);
        thread.start();
        try {
            thread.join(10_000);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(interrupted);
        }
        if (thread.isAlive()) {
            throw new IllegalStateException(name + " did not end within 10 s");
        }
        if (failure.get() != null) {
            throw new IllegalStateException(name + " failed", failure.get());
        }
    }
}
