package dev.bulwark.spring.app;

import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.spring.Bulkhead;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.stereotype.Service;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/** Calls guarded by the bulkhead "inventory-db" (one at a time, no queue), in every supported shape. */
@Service
public class InventoryService {

    // Tests reach these through methods: the bean they hold is a proxy, whose own fields are unset.
    private volatile CountDownLatch release = new CountDownLatch(1);
    private final AtomicInteger calls = new AtomicInteger();
    private volatile CompletableFuture<String> pending = new CompletableFuture<>();
    private volatile Sinks.One<String> monoGate = Sinks.one();

    public void release() {
        release.countDown();
    }

    public int calls() {
        return calls.get();
    }

    public CompletableFuture<String> pending() {
        return pending;
    }

    public Sinks.One<String> monoGate() {
        return monoGate;
    }

    /** Fresh gates and counts for the next test (the context is shared). */
    public void reset() {
        release.countDown();
        release = new CountDownLatch(1);
        calls.set(0);
        pending = new CompletableFuture<>();
        monoGate = Sinks.one();
    }

    @Bulkhead(value = "inventory-db", fallbackMethod = "cachedStock")
    public String stock(String sku) throws InterruptedException {
        calls.incrementAndGet();
        if (sku.equals("slow")) {
            release.await(30, TimeUnit.SECONDS);
        }
        if (sku.equals("broken")) {
            throw new IllegalStateException("broken sku");
        }
        return "stock:" + sku;
    }

    String cachedStock(String sku, BulkheadRejectedException refused) {
        return "cached:" + sku;
    }

    @Bulkhead("inventory-db")
    public CompletableFuture<String> stockAsync(String sku) {
        calls.incrementAndGet();
        return sku.equals("held") ? pending : CompletableFuture.completedFuture("async:" + sku);
    }

    @Bulkhead("inventory-db")
    public Mono<String> stockMono(String sku) {
        calls.incrementAndGet();
        return sku.equals("held") ? monoGate.asMono() : Mono.just("mono:" + sku);
    }

    @Bulkhead(value = "inventory-db", fallbackMethod = "noStocks")
    public Flux<String> stocks(String... skus) {
        calls.incrementAndGet();
        return Flux.fromArray(skus);
    }

    Flux<String> noStocks(String[] skus) {
        return Flux.just("none");
    }
}
