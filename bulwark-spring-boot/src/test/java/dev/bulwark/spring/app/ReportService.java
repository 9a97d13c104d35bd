package dev.bulwark.spring.app;

import dev.bulwark.spring.Bulkhead;
import org.springframework.stereotype.Service;

/** A class-level annotation: every public method runs under the bulkhead "reports". */
@Service
@Bulkhead("reports")
public class ReportService {

    private final dev.bulwark.spring.BulwarkPolicies policies;

    public ReportService(dev.bulwark.spring.BulwarkPolicies policies) {
        this.policies = policies;
    }

    public int executingReports() {
        return policies.bulkhead("reports").executingCount();
    }
}
