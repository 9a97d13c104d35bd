package dev.bulwark.spring.app;

import dev.bulwark.spring.Bulkhead;
import dev.bulwark.spring.Retry;
import dev.bulwark.spring.Timeout;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.stereotype.Service;

/** Retries, timeouts and all three together. */
@Service
public class OrderService {

    // Tests reach these through methods: the bean they hold is a proxy, whose own fields are unset.
    private final AtomicInteger attempts = new AtomicInteger();
    private final AtomicInteger priced = new AtomicInteger();
    private final CountDownLatch never = new CountDownLatch(1);

    public int attempts() {
        return attempts.get();
    }

    public int priced() {
        return priced.get();
    }

    /** Fresh counts for the next test (the context is shared). */
    public void reset() {
        attempts.set(0);
        priced.set(0);
    }

    @Retry("orders")
    public String load(int failuresBeforeSuccess) throws IOException {
        if (attempts.incrementAndGet() <= failuresBeforeSuccess) {
            throw new IOException("flaky " + attempts.get());
        }
        return "order after " + attempts.get() + " attempts";
    }

    @Retry("orders")
    public String reject() {
        attempts.incrementAndGet();
        throw new IllegalArgumentException("not retried: orders retries IOException only");
    }

    @Timeout("pricing")
    public String price() throws InterruptedException {
        priced.incrementAndGet();
        // Never opens: the timeout interrupts this wait at its deadline.
        never.await(30, TimeUnit.SECONDS);
        return "too late";
    }

    @Retry(value = "orders", fallbackMethod = "quoteUnavailable")
    @Timeout("pricing")
    @Bulkhead("pricing-db")
    public String quote() throws InterruptedException {
        priced.incrementAndGet();
        never.await(30, TimeUnit.SECONDS);
        return "too late";
    }

    String quoteUnavailable(Exception failure) {
        return "unavailable: " + failure.getClass().getSimpleName();
    }
}
