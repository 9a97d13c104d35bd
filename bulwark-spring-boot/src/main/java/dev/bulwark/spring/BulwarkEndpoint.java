package dev.bulwark.spring;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * The Actuator endpoint {@code bulwark}: every bulkhead with its limits and how many calls execute and wait now,
 * every partitioned (per-key) bulkhead with the occupancy of its partition table (never its keys), and every retry
 * and timeout. Expose it over HTTP with {@code management.endpoints.web.exposure.include=bulwark}
 * ({@code GET /actuator/bulwark}). Thread-safe; each read is a fresh snapshot.
 */
@Endpoint(id = "bulwark")
public final class BulwarkEndpoint {

    private final BulwarkPolicies policies;

    /**
     * Creates the endpoint.
     *
     * @param policies the policies it reports
     */
    public BulwarkEndpoint(BulwarkPolicies policies) {
        this.policies = policies;
    }

    /**
     * Reports every policy, sorted by name.
     *
     * @return a snapshot
     */
    @ReadOperation
    public Report report() {
        List<BulkheadReport> bulkheads = new ArrayList<>();
        for (dev.bulwark.Bulkhead bulkhead : policies.bulkheads()) {
            bulkheads.add(new BulkheadReport(bulkhead.name(), bulkhead.maxConcurrency(), bulkhead.maxQueue(),
                    bulkhead.maxWait().map(java.time.Duration::toMillis).orElse(null), bulkhead.executingCount(),
                    bulkhead.queuedCount()));
        }
        bulkheads.sort(Comparator.comparing(BulkheadReport::name));
        List<PartitionedReport> partitioned = new ArrayList<>();
        for (dev.bulwark.PartitionedBulkhead<?> bulkhead : policies.partitionedBulkheads()) {
            partitioned.add(new PartitionedReport(bulkhead.name(), bulkhead.partitionCount(),
                    bulkhead.maxPartitions(), bulkhead.evictionCount(), bulkhead.executingCount(),
                    bulkhead.queuedCount()));
        }
        partitioned.sort(Comparator.comparing(PartitionedReport::name));
        List<RetryReport> retries = new ArrayList<>();
        for (dev.bulwark.Retry retry : policies.retries()) {
            retries.add(new RetryReport(retry.name(), retry.maxRetries()));
        }
        retries.sort(Comparator.comparing(RetryReport::name));
        List<TimeoutReport> timeouts = new ArrayList<>();
        for (dev.bulwark.Timeout timeout : policies.timeouts()) {
            timeouts.add(new TimeoutReport(timeout.name(), timeout.timeout().toMillis()));
        }
        timeouts.sort(Comparator.comparing(TimeoutReport::name));
        return new Report(bulkheads, partitioned, retries, timeouts);
    }

    /**
     * What the endpoint reports.
     *
     * @param bulkheads every bulkhead
     * @param partitioned every partitioned bulkhead (those of keyed shedding routes, and those registered)
     * @param retries every retry
     * @param timeouts every timeout
     */
    public record Report(List<BulkheadReport> bulkheads, List<PartitionedReport> partitioned,
                         List<RetryReport> retries, List<TimeoutReport> timeouts) {
    }

    /**
     * One partitioned bulkhead's partition table: how full it is, never which keys it holds.
     *
     * @param name its name
     * @param partitions the partitions that exist now
     * @param maxPartitions the most that may exist at once
     * @param evictions partitions evicted since it was made (idle, or to make room for a new key)
     * @param executing calls holding a slot in any partition now
     * @param queued calls waiting in any partition's queue now
     */
    public record PartitionedReport(String name, int partitions, int maxPartitions, long evictions, int executing,
                                    int queued) {
    }

    /**
     * One bulkhead's limits and counts.
     *
     * @param name its name
     * @param maxConcurrency the concurrency limit in force
     * @param maxQueue the queue limit in force
     * @param maxWaitMillis the maximum wait in milliseconds, or {@code null} when unbounded
     * @param executing calls holding a slot now
     * @param queued calls waiting now
     */
    public record BulkheadReport(String name, int maxConcurrency, int maxQueue, Long maxWaitMillis, int executing,
                                 int queued) {
    }

    /**
     * One retry's limit.
     *
     * @param name its name
     * @param maxRetries retries after the first attempt
     */
    public record RetryReport(String name, int maxRetries) {
    }

    /**
     * One timeout's duration.
     *
     * @param name its name
     * @param timeoutMillis the duration in milliseconds
     */
    public record TimeoutReport(String name, long timeoutMillis) {
    }
}
