package dev.bulwark.redis.internal;

import dev.bulwark.redis.RedisBulkheadException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * Waits for a Redis reply on behalf of a blocking management method ({@code changeMaxConcurrency}, the fleet-wide
 * counts) of either cluster mode, and turns its failure into the one exception such methods throw.
 */
public final class BlockingReply {

    private BlockingReply() {
    }

    /**
     * Waits for {@code reply}; the command's own timeout bounds the wait.
     *
     * @param bulkheadName the bulkhead's name, for the exception
     * @param operation what was asked, for the exception
     * @param reply the reply on its way
     * @param <T> the reply's type
     * @return the reply
     * @throws RedisBulkheadException when Redis failed, or the wait was interrupted (the interrupt is kept)
     */
    public static <T> T await(String bulkheadName, String operation, CompletableFuture<T> reply) {
        try {
            return reply.get();
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new RedisBulkheadException(bulkheadName, operation, interrupted);
        } catch (ExecutionException failure) {
            throw new RedisBulkheadException(bulkheadName, operation, failure.getCause());
        }
    }
}
