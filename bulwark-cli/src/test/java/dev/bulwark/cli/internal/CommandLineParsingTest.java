package dev.bulwark.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.cli.internal.sim.ArrivalModel;
import dev.bulwark.cli.internal.sim.BulkheadSettings;
import dev.bulwark.cli.internal.sim.Distribution;
import dev.bulwark.cli.internal.sim.ExecutionMode;
import dev.bulwark.cli.internal.sim.Rate;
import dev.bulwark.cli.internal.sim.RetrySettings;
import dev.bulwark.cli.internal.sim.SimulationSettings;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/** Every flag of {@code simulate} and {@code sweep} reaches the settings it stands for. Nothing is run. */
class CommandLineParsingTest {

    private static Object parse(String... args) {
        CommandLine commandLine = BulwarkCommand.commandLine(new PrintWriter(new StringWriter()),
                new PrintWriter(new StringWriter()));
        ParseResult result = commandLine.parseArgs(args);
        return result.subcommand().commandSpec().userObject();
    }

    private static SimulateCommand simulate(String... args) {
        String[] all = new String[args.length + 1];
        all[0] = "simulate";
        System.arraycopy(args, 0, all, 1, args.length);
        return (SimulateCommand) parse(all);
    }

    private static SweepCommand sweep(String... args) {
        String[] all = new String[args.length + 1];
        all[0] = "sweep";
        System.arraycopy(args, 0, all, 1, args.length);
        return (SweepCommand) parse(all);
    }

    @Test
    void defaultsTellTheStory() {
        SimulateCommand command = simulate();
        SimulationSettings settings = command.settings();

        assertThat(settings.duration()).isEqualTo(Duration.ofSeconds(10));
        assertThat(settings.arrivals()).isEqualTo(new ArrivalModel.OpenLoop(new Rate(2000)));
        assertThat(settings.serviceTime()).isEqualTo(Distribution.parse("exp:20ms"));
        assertThat(settings.downstreamCapacity()).isEqualTo(32);
        assertThat(settings.degradation()).isEqualTo(1.0);
        assertThat(settings.bulkhead()).contains(new BulkheadSettings(32, 64, Duration.ofMillis(100)));
        assertThat(settings.retry()).isEmpty();
        assertThat(settings.timeout()).isEmpty();
        assertThat(settings.mode()).isEqualTo(ExecutionMode.ASYNC);
        assertThat(settings.drain()).isEqualTo(Duration.ofSeconds(1));
        assertThat(command.scenario.format).isEqualTo(ReportFormat.TEXT);
        assertThat(command.scenario.progress).isEqualTo(ProgressMode.AUTO);
        assertThat(command.report).isNull();
        // 40 calls' worth of work offered to a capacity of 32: a bulkhead has something to do.
        assertThat(settings.offeredConcurrency()).contains(40.0);
    }

    @Test
    void withoutASeedEachRunDrawsOneAndReportsIt() {
        assertThat(simulate().settings().seed()).isPositive();
        assertThat(simulate("--seed", "-42").settings().seed()).isEqualTo(-42);
    }

    @Test
    void arrivalFlags() {
        assertThat(simulate("--rate", "120000/m").settings().arrivals())
                .isEqualTo(new ArrivalModel.OpenLoop(new Rate(2000)));
        assertThat(simulate("--clients", "50").settings().arrivals())
                .isEqualTo(new ArrivalModel.ClosedLoop(50, Distribution.parse("5ms")));
        assertThat(simulate("--clients", "50", "--think-time", "exp:10ms").settings().arrivals())
                .isEqualTo(new ArrivalModel.ClosedLoop(50, Distribution.parse("exp:10ms")));
        assertThat(simulate("--duration", "1.5s").settings().duration()).isEqualTo(Duration.ofMillis(1500));
    }

    @Test
    void downstreamFlags() {
        SimulationSettings settings = simulate("--service-time", "lognormal:median=15ms,p99=120ms",
                "--downstream-capacity", "8", "--degradation", "0.5").settings();

        assertThat(settings.serviceTime()).isEqualTo(Distribution.parse("lognormal:median=15ms,p99=120ms"));
        assertThat(settings.downstreamCapacity()).isEqualTo(8);
        assertThat(settings.degradation()).isEqualTo(0.5);
        assertThat(simulate("--service-time", "fixed:3ms").settings().serviceTime())
                .isEqualTo(Distribution.parse("fixed:3ms"));
    }

    @Test
    void bulkheadFlags() {
        assertThat(simulate("--limit", "4", "--queue", "0", "--max-wait", "1s").settings().bulkhead())
                .contains(new BulkheadSettings(4, 0, Duration.ofSeconds(1)));
        assertThat(simulate("--max-wait", "none").settings().bulkhead())
                .contains(new BulkheadSettings(32, 64, null));
        assertThat(simulate("--no-bulkhead").settings().bulkhead()).isEmpty();
    }

    @Test
    void queueOrderAndAdaptiveFlags() {
        BulkheadSettings lifo = simulate("--queue-order", "lifo").settings().bulkhead().orElseThrow();
        assertThat(lifo.queueOrder()).isEqualTo(dev.bulwark.QueueOrder.LIFO);
        assertThat(lifo.adaptive()).isNull();

        BulkheadSettings gradient = simulate("--adaptive", "gradient", "--limit", "5", "--min-limit", "2",
                "--max-limit", "80").settings().bulkhead().orElseThrow();
        assertThat(gradient.limit()).isEqualTo(5);
        assertThat(gradient.adaptive()).isInstanceOfSatisfying(dev.bulwark.AdaptiveLimit.Gradient.class, limit -> {
            assertThat(limit.minLimit()).isEqualTo(2);
            assertThat(limit.maxLimit()).isEqualTo(80);
        });

        BulkheadSettings aimd = simulate("--adaptive", "aimd", "--service-time", "fixed:40ms").settings().bulkhead()
                .orElseThrow();
        assertThat(aimd.adaptive()).isInstanceOfSatisfying(dev.bulwark.AdaptiveLimit.Aimd.class,
                limit -> assertThat(limit.latencyThreshold()).contains(Duration.ofMillis(50)));
        BulkheadSettings aimdThreshold = simulate("--adaptive", "aimd", "--latency-threshold", "30ms").settings()
                .bulkhead().orElseThrow();
        assertThat(((dev.bulwark.AdaptiveLimit.Aimd) aimdThreshold.adaptive()).latencyThreshold())
                .contains(Duration.ofMillis(30));
    }

    @Test
    void retryAndTimeoutFlags() {
        SimulationSettings settings = simulate("--retry", "2", "--retry-delay", "50ms", "--timeout", "200ms")
                .settings();

        assertThat(settings.retry()).contains(new RetrySettings(2, Duration.ofMillis(50)));
        assertThat(settings.timeout()).contains(Duration.ofMillis(200));
        assertThat(simulate("--retry", "1").settings().retry()).contains(new RetrySettings(1, null));
    }

    @Test
    void runAndOutputFlags() {
        SimulateCommand command = simulate("--threads", "--drain", "0ms", "--format", "json", "--progress", "plain",
                "--report", "out.html");

        assertThat(command.settings().mode()).isEqualTo(ExecutionMode.THREADS);
        assertThat(command.settings().drain()).isEqualTo(Duration.ZERO);
        assertThat(command.scenario.format).isEqualTo(ReportFormat.JSON);
        assertThat(command.scenario.progress).isEqualTo(ProgressMode.PLAIN);
        assertThat(command.report).isEqualTo(Path.of("out.html"));
        assertThat(simulate("--format", "CSV").scenario.format).isEqualTo(ReportFormat.CSV);
        assertThat(simulate("--progress", "off").scenario.progress).isEqualTo(ProgressMode.OFF);
        assertThat(simulate("--progress", "live").scenario.progress).isEqualTo(ProgressMode.LIVE);
    }

    @Test
    void sweepFlags() {
        SweepCommand command = sweep("--limit", "4,8,16,32", "--queue", "0,16,64", "--max-wait", "50ms",
                "--target-p99", "250ms", "--max-reject", "1%", "--rate", "1400/s");

        assertThat(command.limits).containsExactly(4, 8, 16, 32);
        assertThat(command.queues).containsExactly(0, 16, 64);
        assertThat(command.maxWait).isEqualTo(Duration.ofMillis(50));
        assertThat(command.targetP99).isEqualTo(Duration.ofMillis(250));
        assertThat(command.maxReject).isEqualTo(0.01);
        assertThat(command.duration).isEqualTo(Duration.ofSeconds(5));
        assertThat(sweep("--max-reject", "0.5").maxReject).isEqualTo(0.005);
    }

    @Test
    void sweepDefaultsCoverBothSidesOfTheDownstreamsCapacity() {
        SweepCommand command = sweep();

        assertThat(command.limits).isEqualTo(List.of(8, 16, 32, 64));
        assertThat(command.queues).isEqualTo(List.of(0, 16, 64));
        assertThat(command.targetP99).isNull();
        assertThat(command.maxReject).isNull();
    }
}
