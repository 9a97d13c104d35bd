package dev.bulwark.cli.internal.report;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.bulwark.cli.internal.sim.ArrivalModel;
import dev.bulwark.cli.internal.sim.BulkheadEventCounts;
import dev.bulwark.cli.internal.sim.BulkheadSettings;
import dev.bulwark.cli.internal.sim.CallOutcome;
import dev.bulwark.cli.internal.sim.LatencyBucket;
import dev.bulwark.cli.internal.sim.LatencySummary;
import dev.bulwark.cli.internal.sim.LittlesLaw;
import dev.bulwark.cli.internal.sim.OutcomeCounts;
import dev.bulwark.cli.internal.sim.Sample;
import dev.bulwark.cli.internal.sim.SimulationResult;
import dev.bulwark.cli.internal.sim.SimulationSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.List;
import java.util.Optional;

/**
 * The report of a run as one JSON object, written with Jackson's streaming generator. Durations are in
 * milliseconds (fields ending in {@code Ms}), rates per second; a value that does not exist (a percentile of no
 * calls) is {@code null}.
 */
public final class JsonReport {

    private static final JsonFactory FACTORY = JsonFactory.builder().build();

    private JsonReport() {
    }

    /**
     * Writes the report of one run, followed by a line break. Leaves {@code out} open.
     *
     * @param result the run
     * @param out where to write
     * @throws UncheckedIOException when writing fails
     */
    public static void write(SimulationResult result, Writer out) {
        try (JsonGenerator json = generator(out)) {
            writeResult(json, result, true);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        newline(out);
    }

    static JsonGenerator generator(Writer out) throws IOException {
        JsonGenerator json = FACTORY.createGenerator(out);
        json.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
        json.useDefaultPrettyPrinter();
        return json;
    }

    static void newline(Writer out) {
        try {
            out.write(System.lineSeparator());
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes one run as an object; {@code withTimeline} adds the time series and distributions. */
    static void writeResult(JsonGenerator json, SimulationResult result, boolean withTimeline) throws IOException {
        json.writeStartObject();
        writeSettings(json, result);
        json.writeNumberField("elapsedMs", result.elapsed().toNanos() / 1e6);
        writeOutcomes(json, result.counts());
        json.writeNumberField("goodputPerSecond", result.goodput());
        json.writeNumberField("offeredPerSecond", result.offeredRate());
        json.writeNumberField("unservedShare", result.counts().unservedShare());
        BreakdownReport.json(result, json);
        json.writeObjectFieldStart("latencyMs");
        writeLatency(json, "queueWait", result.queueWait());
        writeLatency(json, "endToEnd", result.endToEnd());
        json.writeEndObject();
        json.writeNumberField("retries", result.retries());
        json.writeNumberField("timedOutAttempts", result.timedOutAttempts());
        json.writeNumberField("peakInFlight", result.peakInFlight());
        json.writeNumberField("peakQueued", result.peakQueued());
        json.writeObjectFieldStart("downstream");
        number(json, "meanTimeMs", result.littlesLaw().meanTimeInDownstreamMillis());
        number(json, "slowdown", result.slowdown());
        json.writeBooleanField("healthy", Verdict.healthy(result));
        json.writeEndObject();
        LittlesLaw law = result.littlesLaw();
        json.writeObjectFieldStart("littlesLaw");
        json.writeNumberField("meanInFlight", law.meanInFlight());
        json.writeNumberField("throughputPerSecond", law.throughputPerSecond());
        number(json, "meanTimeInDownstreamMs", law.meanTimeInDownstreamMillis());
        json.writeNumberField("product", law.product());
        json.writeNumberField("relativeGap", law.relativeGap());
        json.writeBooleanField("holds", law.holds());
        json.writeEndObject();
        if (result.bulkheadEvents().isPresent()) {
            BulkheadEventCounts events = result.bulkheadEvents().get();
            json.writeObjectFieldStart("bulkheadEvents");
            json.writeNumberField("admitted", events.admitted());
            json.writeNumberField("admittedAfterWaiting", events.admittedAfterWaiting());
            json.writeNumberField("rejectedQueueFull", events.rejectedQueueFull());
            json.writeNumberField("rejectedWaitTimeout", events.rejectedWaitTimeout());
            json.writeNumberField("rejectedEvicted", events.rejectedEvicted());
            json.writeNumberField("rejectedOtherwise", events.rejectedOtherwise());
            json.writeNumberField("cancelledWhileQueued", events.cancelledWhileQueued());
            json.writeNumberField("released", events.released());
            json.writeEndObject();
        } else {
            json.writeNullField("bulkheadEvents");
        }
        json.writeObjectFieldStart("schedulingLagMs");
        number(json, "arrivalP99", result.schedulingLag().arrivalP99());
        number(json, "arrivalMax", result.schedulingLag().arrivalMax());
        number(json, "completionMax", result.schedulingLag().completionMax());
        json.writeBooleanField("punctual", result.schedulingLag().punctual());
        json.writeEndObject();
        json.writeStringField("verdict", Verdict.sentence(result));
        Optional<String> caution = Verdict.caution(result);
        if (caution.isPresent()) {
            json.writeStringField("caution", caution.get());
        } else {
            json.writeNullField("caution");
        }
        if (result.unexpectedFailure().isPresent()) {
            json.writeStringField("unexpectedFailure", result.unexpectedFailure().get());
        } else {
            json.writeNullField("unexpectedFailure");
        }
        if (withTimeline) {
            writeDistribution(json, "endToEndDistribution", result.endToEndDistribution());
            writeDistribution(json, "queueWaitDistribution", result.queueWaitDistribution());
            writeTimeline(json, result.timeline());
        }
        json.writeEndObject();
    }

    private static void writeSettings(JsonGenerator json, SimulationResult result) throws IOException {
        SimulationSettings settings = result.settings();
        json.writeObjectFieldStart("settings");
        json.writeNumberField("durationMs", settings.duration().toNanos() / 1e6);
        json.writeObjectFieldStart("arrivals");
        if (settings.arrivals() instanceof ArrivalModel.OpenLoop) {
            json.writeStringField("model", "open");
            ArrivalModel.OpenLoop open = (ArrivalModel.OpenLoop) settings.arrivals();
            json.writeNumberField("ratePerSecond", open.rate().perSecond());
            if (open.schedule() != null) {
                // The mean rate above, and the schedule it is the mean of, in --schedule's grammar.
                json.writeStringField("schedule", open.schedule().describe());
            }
        } else {
            ArrivalModel.ClosedLoop closed = (ArrivalModel.ClosedLoop) settings.arrivals();
            json.writeStringField("model", "closed");
            json.writeNumberField("clients", closed.clients());
            json.writeStringField("thinkTime", closed.thinkTime().spec());
        }
        json.writeEndObject();
        json.writeNumberField("seed", settings.seed());
        json.writeStringField("serviceTime", settings.serviceTime().spec());
        json.writeNumberField("serviceTimeMeanMs", settings.serviceTime().meanNanos() / 1e6);
        json.writeNumberField("downstreamCapacity", settings.downstreamCapacity());
        json.writeNumberField("degradation", settings.degradation());
        if (settings.bulkhead().isPresent()) {
            BulkheadSettings bulkhead = settings.bulkhead().get();
            json.writeObjectFieldStart("bulkhead");
            json.writeNumberField("limit", bulkhead.limit());
            json.writeNumberField("queue", bulkhead.queue());
            if (bulkhead.maxWait() == null) {
                json.writeNullField("maxWaitMs");
            } else {
                json.writeNumberField("maxWaitMs", bulkhead.maxWait().toNanos() / 1e6);
            }
            json.writeStringField("queueOrder", bulkhead.queueOrder().name().toLowerCase(java.util.Locale.ROOT));
            if (bulkhead.adaptiveIfAny().isPresent()) {
                dev.bulwark.AdaptiveLimit adaptive = bulkhead.adaptiveIfAny().get();
                json.writeObjectFieldStart("adaptive");
                json.writeStringField("algorithm", bulkhead.adaptiveAlgorithm().orElseThrow());
                json.writeNumberField("initialLimit", bulkhead.limit());
                json.writeNumberField("minLimit", adaptive.minLimit());
                json.writeNumberField("maxLimit", adaptive.maxLimit());
                json.writeStringField("description", adaptive.toString());
                json.writeEndObject();
            } else {
                json.writeNullField("adaptive");
            }
            json.writeEndObject();
        } else {
            json.writeNullField("bulkhead");
        }
        if (settings.retry().isPresent()) {
            json.writeObjectFieldStart("retry");
            json.writeNumberField("maxRetries", settings.retry().get().maxRetries());
            if (settings.retry().get().delay() == null) {
                json.writeNullField("delayMs");
            } else {
                json.writeNumberField("delayMs", settings.retry().get().delay().toNanos() / 1e6);
            }
            json.writeEndObject();
        } else {
            json.writeNullField("retry");
        }
        if (settings.timeout().isPresent()) {
            json.writeNumberField("timeoutMs", settings.timeout().get().toNanos() / 1e6);
        } else {
            json.writeNullField("timeoutMs");
        }
        json.writeStringField("calls", result.callStyle());
        json.writeStringField("time", settings.mode() == dev.bulwark.cli.internal.sim.ExecutionMode.VIRTUAL_TIME
                ? "virtual" : "real");
        json.writeNumberField("drainMs", settings.drain().toNanos() / 1e6);
        writeCallMix(json, settings);
        json.writeEndObject();
    }

    /** The classes of calls: {@code priorityMix}, {@code weights} (spec strings) and {@code reserve} (an object). */
    private static void writeCallMix(JsonGenerator json, SimulationSettings settings) throws IOException {
        dev.bulwark.cli.internal.sim.CallMix mix = settings.callMix().orElse(null);
        if (mix != null && mix.priorityMix().isPresent()) {
            json.writeStringField("priorityMix", mix.priorityMix().get().spec());
        } else {
            json.writeNullField("priorityMix");
        }
        if (mix != null && mix.weightMix().isPresent()) {
            json.writeStringField("weights", mix.weightMix().get().spec());
        } else {
            json.writeNullField("weights");
        }
        json.writeObjectFieldStart("reserve");
        if (mix != null) {
            for (java.util.Map.Entry<dev.bulwark.Priority, Integer> reserve : mix.reserves().entrySet()) {
                json.writeNumberField(reserve.getKey().name().toLowerCase(java.util.Locale.ROOT), reserve.getValue());
            }
        }
        json.writeEndObject();
    }

    static void writeOutcomes(JsonGenerator json, OutcomeCounts counts) throws IOException {
        json.writeObjectFieldStart("outcomes");
        json.writeNumberField("arrivals", counts.arrivals());
        json.writeNumberField("completed", counts.count(CallOutcome.COMPLETED));
        json.writeNumberField("rejectedQueueFull", counts.count(CallOutcome.REJECTED_QUEUE_FULL));
        json.writeNumberField("rejectedWaitTimeout", counts.count(CallOutcome.REJECTED_WAIT_TIMEOUT));
        json.writeNumberField("rejectedEvicted", counts.count(CallOutcome.REJECTED_EVICTED));
        json.writeNumberField("timedOut", counts.count(CallOutcome.TIMED_OUT));
        json.writeNumberField("cancelled", counts.count(CallOutcome.CANCELLED));
        json.writeNumberField("failed", counts.count(CallOutcome.FAILED));
        json.writeEndObject();
    }

    private static void writeLatency(JsonGenerator json, String name, LatencySummary summary) throws IOException {
        json.writeObjectFieldStart(name);
        json.writeNumberField("count", summary.count());
        number(json, "mean", summary.mean());
        number(json, "p50", summary.p50());
        number(json, "p90", summary.p90());
        number(json, "p99", summary.p99());
        number(json, "p999", summary.p999());
        number(json, "max", summary.max());
        json.writeEndObject();
    }

    private static void writeDistribution(JsonGenerator json, String name, List<LatencyBucket> buckets)
            throws IOException {
        json.writeArrayFieldStart(name);
        for (LatencyBucket bucket : buckets) {
            json.writeStartObject();
            json.writeNumberField("fromMs", bucket.fromMillis());
            json.writeNumberField("toMs", bucket.toMillis());
            json.writeNumberField("count", bucket.count());
            json.writeEndObject();
        }
        json.writeEndArray();
    }

    private static void writeTimeline(JsonGenerator json, List<Sample> timeline) throws IOException {
        json.writeArrayFieldStart("timeline");
        for (Sample sample : timeline) {
            json.writeStartObject();
            json.writeNumberField("elapsedMs", sample.elapsedNanos() / 1e6);
            json.writeNumberField("arrivals", sample.arrivals());
            json.writeNumberField("completed", sample.completed());
            json.writeNumberField("rejected", sample.rejected());
            json.writeNumberField("timedOut", sample.timedOut());
            json.writeNumberField("cancelled", sample.cancelled());
            json.writeNumberField("inFlight", sample.inFlight());
            json.writeNumberField("queued", sample.queued());
            json.writeNumberField("limit", sample.limit());
            json.writeEndObject();
        }
        json.writeEndArray();
    }

    /** JSON has no NaN: a value that does not exist is null. */
    static void number(JsonGenerator json, String name, double value) throws IOException {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            json.writeNullField(name);
        } else {
            json.writeNumberField(name, value);
        }
    }
}
