package dev.bulwark.http.internal;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.http.HttpClient;
import java.time.Duration;

/**
 * Forwards {@link HttpClient}'s life-cycle methods, which exist from Java 21 on ({@code shutdown}, {@code
 * shutdownNow}, {@code awaitTermination}, {@code isTerminated}, {@code close}), to a delegate. This module compiles
 * for Java 17, where they do not exist, so they are looked up once; on Java 17 each is absent and does nothing.
 */
public final class ClientLifecycle {

    private static final MethodHandle SHUTDOWN = find("shutdown", MethodType.methodType(void.class));
    private static final MethodHandle SHUTDOWN_NOW = find("shutdownNow", MethodType.methodType(void.class));
    private static final MethodHandle AWAIT_TERMINATION = find("awaitTermination",
            MethodType.methodType(boolean.class, Duration.class));
    private static final MethodHandle IS_TERMINATED = find("isTerminated", MethodType.methodType(boolean.class));
    private static final MethodHandle CLOSE = find("close", MethodType.methodType(void.class));

    private ClientLifecycle() {
    }

    private static MethodHandle find(String name, MethodType type) {
        try {
            return MethodHandles.publicLookup().findVirtual(HttpClient.class, name, type);
        } catch (NoSuchMethodException | IllegalAccessException beforeJava21) {
            return null;
        }
    }

    /** Calls {@code delegate.shutdown()} where it exists. */
    public static void shutdown(HttpClient delegate) {
        invokeVoid(SHUTDOWN, delegate);
    }

    /** Calls {@code delegate.shutdownNow()} where it exists. */
    public static void shutdownNow(HttpClient delegate) {
        invokeVoid(SHUTDOWN_NOW, delegate);
    }

    /** Calls {@code delegate.close()} where it exists. */
    public static void close(HttpClient delegate) {
        invokeVoid(CLOSE, delegate);
    }

    /** Calls {@code delegate.awaitTermination(duration)} where it exists; {@code false} before Java 21. */
    public static boolean awaitTermination(HttpClient delegate, Duration duration) throws InterruptedException {
        if (AWAIT_TERMINATION == null) {
            return false;
        }
        try {
            return (boolean) AWAIT_TERMINATION.invoke(delegate, duration);
        } catch (InterruptedException | RuntimeException | Error failure) {
            throw failure;
        } catch (Throwable impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    /** Calls {@code delegate.isTerminated()} where it exists; {@code false} before Java 21. */
    public static boolean isTerminated(HttpClient delegate) {
        if (IS_TERMINATED == null) {
            return false;
        }
        try {
            return (boolean) IS_TERMINATED.invoke(delegate);
        } catch (RuntimeException | Error failure) {
            throw failure;
        } catch (Throwable impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    private static void invokeVoid(MethodHandle handle, HttpClient delegate) {
        if (handle == null) {
            return;
        }
        try {
            handle.invoke(delegate);
        } catch (RuntimeException | Error failure) {
            throw failure;
        } catch (Throwable impossible) {
            throw new IllegalStateException(impossible);
        }
    }
}
