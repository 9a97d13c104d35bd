package dev.bulwark.cli.internal.report;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.bulwark.Rejection;
import dev.bulwark.cli.internal.sim.Durations;
import dev.bulwark.cli.internal.sim.TenantSimulation;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Locale;

/**
 * The report of a per-tenant run ({@code bulwark simulate --tenants N}) as text, JSON or CSV: per tenant, its calls,
 * how many ran, how many were refused and why, and its p50 and p99 wait; then the other tenants' pooled p99 wait,
 * the figure the noisy-tenant comparison is about. Waits are in milliseconds.
 */
public final class TenantReport {

    private static final Rejection.Reason[] REASONS = Rejection.Reason.values();

    private TenantReport() {
    }

    /**
     * Writes the text table.
     *
     * @param result the run
     * @param out where to write
     */
    public static void writeText(TenantSimulation.Result result, PrintWriter out) {
        TenantSimulation.Settings settings = result.settings();
        out.printf(Locale.ROOT, "Tenants: %d, tenant 0 at %sx the rate of each other (%s), %s, virtual time%n",
                settings.tenants(), Numbers.plain(settings.noisyFactor()), settings.ratePerTenant(),
                settings.fairShares() ? "fair shares" : "global FIFO");
        out.printf(Locale.ROOT, "Limits: %d per tenant (t0: %d; queue %d), global %s, max wait %s; service time %s; "
                        + "%s of arrivals; seed %d%n", settings.limit(), settings.noisyLimit(), settings.queue(),
                globalLimit(result),
                settings.maxWait() == null ? "none" : Durations.format(settings.maxWait()),
                settings.serviceTime().spec(), Durations.format(settings.duration()), settings.seed());
        out.printf(Locale.ROOT, "Downstream: %s; peak %d in flight%n", settings.downstreamCapacity() == null
                ? "a pure delay (no capacity)" : "capacity " + settings.downstreamCapacity() + ", degradation "
                + Numbers.plain(settings.degradation()), result.downstreamPeakInFlight());
        out.println();
        out.printf(Locale.ROOT, "%-8s %10s %10s %10s  %-28s %10s %10s%n", "tenant", "calls", "served", "refused",
                "refused by reason", "p50 wait", "p99 wait");
        for (TenantSimulation.TenantOutcome tenant : result.tenants()) {
            long refused = tenant.refused().values().stream().mapToLong(Long::longValue).sum();
            out.printf(Locale.ROOT, "%-8s %10s %10s %10s  %-28s %10s %10s%n", "t" + tenant.tenant(),
                    Numbers.count(tenant.arrivals()), Numbers.count(tenant.served()), Numbers.count(refused),
                    reasons(tenant), ms(tenant.waitPercentile(50)), ms(tenant.waitPercentile(99)));
        }
        out.println();
        out.printf(Locale.ROOT, "Other tenants (t1..t%d) pooled: p50 wait %s ms, p99 wait %s ms%n",
                settings.tenants() - 1, ms(result.othersWaitPercentile(50)), ms(result.othersWaitPercentile(99)));
    }

    /**
     * Writes one JSON object, followed by a line break.
     *
     * @param result the run
     * @param out where to write
     */
    public static void writeJson(TenantSimulation.Result result, PrintWriter out) {
        TenantSimulation.Settings settings = result.settings();
        try (JsonGenerator json = JsonReport.generator(out)) {
            json.writeStartObject();
            json.writeObjectFieldStart("settings");
            json.writeNumberField("tenants", settings.tenants());
            json.writeNumberField("noisyFactor", settings.noisyFactor());
            json.writeNumberField("ratePerTenantPerSecond", settings.ratePerTenant().perSecond());
            json.writeStringField("serviceTime", settings.serviceTime().spec());
            json.writeNumberField("limitPerTenant", settings.limit());
            json.writeNumberField("noisyTenantLimit", settings.noisyLimit());
            json.writeNumberField("queuePerTenant", settings.queue());
            if (settings.maxWait() == null) {
                json.writeNullField("maxWaitMs");
            } else {
                json.writeNumberField("maxWaitMs", settings.maxWait().toNanos() / 1e6);
            }
            json.writeNumberField("globalLimit", settings.globalLimit());
            if (settings.adaptive() == null) {
                json.writeNullField("adaptive");
            } else {
                json.writeStringField("adaptive", settings.adaptiveAlgorithm().orElseThrow());
            }
            if (settings.downstreamCapacity() == null) {
                json.writeNullField("downstreamCapacity");
            } else {
                json.writeNumberField("downstreamCapacity", settings.downstreamCapacity());
                json.writeNumberField("degradation", settings.degradation());
            }
            json.writeStringField("sharing", settings.fairShares() ? "fair-shares" : "global-fifo");
            json.writeNumberField("durationMs", settings.duration().toNanos() / 1e6);
            json.writeNumberField("seed", settings.seed());
            json.writeEndObject();
            json.writeArrayFieldStart("tenants");
            for (TenantSimulation.TenantOutcome tenant : result.tenants()) {
                json.writeStartObject();
                json.writeStringField("tenant", "t" + tenant.tenant());
                json.writeNumberField("calls", tenant.arrivals());
                json.writeNumberField("served", tenant.served());
                json.writeObjectFieldStart("refused");
                for (Rejection.Reason reason : REASONS) {
                    json.writeNumberField(reason.name(), tenant.refused().getOrDefault(reason, 0L));
                }
                json.writeEndObject();
                json.writeNumberField("p50WaitMs", tenant.waitPercentile(50).toNanos() / 1e6);
                json.writeNumberField("p99WaitMs", tenant.waitPercentile(99).toNanos() / 1e6);
                json.writeEndObject();
            }
            json.writeEndArray();
            json.writeNumberField("othersP50WaitMs", result.othersWaitPercentile(50).toNanos() / 1e6);
            json.writeNumberField("othersP99WaitMs", result.othersWaitPercentile(99).toNanos() / 1e6);
            json.writeObjectFieldStart("globalLimit");
            json.writeNumberField("lowest", result.globalLimit().lowest());
            json.writeNumberField("highest", result.globalLimit().highest());
            json.writeNumberField("mean", result.globalLimit().mean());
            json.writeEndObject();
            json.writeNumberField("downstreamPeakInFlight", result.downstreamPeakInFlight());
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        JsonReport.newline(out);
    }

    /**
     * Writes a CSV table: a header, then one row per tenant and a last row {@code others} with the pooled waits.
     *
     * @param result the run
     * @param out where to write
     */
    public static void writeCsv(TenantSimulation.Result result, PrintWriter out) {
        StringBuilder header = new StringBuilder("tenant,calls,served");
        for (Rejection.Reason reason : REASONS) {
            header.append(",refused_").append(reason.name().toLowerCase(Locale.ROOT));
        }
        out.println(header.append(",p50_wait_ms,p99_wait_ms"));
        for (TenantSimulation.TenantOutcome tenant : result.tenants()) {
            StringBuilder row = new StringBuilder("t" + tenant.tenant()).append(',').append(tenant.arrivals())
                    .append(',').append(tenant.served());
            for (Rejection.Reason reason : REASONS) {
                row.append(',').append(tenant.refused().getOrDefault(reason, 0L));
            }
            out.println(row.append(',').append(plainMs(tenant.waitPercentile(50))).append(',')
                    .append(plainMs(tenant.waitPercentile(99))));
        }
        StringBuilder others = new StringBuilder("others,,");
        for (int i = 0; i < REASONS.length; i++) {
            others.append(',');
        }
        out.println(others.append(',').append(plainMs(result.othersWaitPercentile(50))).append(',')
                .append(plainMs(result.othersWaitPercentile(99))));
    }

    /** The fixed global limit, or the adaptive one's algorithm, start and range while calls arrived. */
    private static String globalLimit(TenantSimulation.Result result) {
        TenantSimulation.Settings settings = result.settings();
        TenantSimulation.LimitRange range = result.globalLimit();
        return settings.adaptiveAlgorithm().map(algorithm -> String.format(Locale.ROOT,
                "%s from %d, %d..%d (mean %.1f)", algorithm, settings.globalLimit(), range.lowest(), range.highest(),
                range.mean())).orElse(Integer.toString(settings.globalLimit()));
    }

    private static String reasons(TenantSimulation.TenantOutcome tenant) {
        StringBuilder text = new StringBuilder();
        for (Rejection.Reason reason : REASONS) {
            Long count = tenant.refused().get(reason);
            if (count != null && count > 0) {
                text.append(text.length() == 0 ? "" : ", ").append(reason.name().toLowerCase(Locale.ROOT))
                        .append(' ').append(Numbers.count(count));
            }
        }
        return text.length() == 0 ? "-" : text.toString();
    }

    private static String ms(Duration duration) {
        return Numbers.millis(duration.toNanos() / 1e6);
    }

    private static String plainMs(Duration duration) {
        return Numbers.plain(duration.toNanos() / 1e6);
    }
}
