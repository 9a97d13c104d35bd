package dev.bulwark.benchmarks.report;

import dev.bulwark.benchmarks.AsyncCallBenchmark;
import dev.bulwark.benchmarks.AsyncHandOffBenchmark;
import dev.bulwark.benchmarks.ContendedCallBenchmark;
import dev.bulwark.benchmarks.HandOffBenchmark;
import dev.bulwark.benchmarks.ListenerBenchmark;
import dev.bulwark.benchmarks.PerKeyBenchmark;
import dev.bulwark.benchmarks.PipelineBenchmark;
import dev.bulwark.benchmarks.ProductionStackBenchmark;
import dev.bulwark.benchmarks.RejectionBenchmark;
import dev.bulwark.benchmarks.UncontendedCallBenchmark;
import dev.bulwark.benchmarks.conformance.Check;
import dev.bulwark.benchmarks.subjects.Subjects;
import java.util.List;
import java.util.Optional;
import org.openjdk.jmh.annotations.Param;

/**
 * The rows of the comparison table, in order: which benchmark method each reads, which subject is its floor, and
 * which conformance checks its subjects must pass (taken from the benchmark class, so they cannot disagree). The
 * subjects expected in each row are the benchmark's own {@code @Param} list.
 *
 * <p>A new scenario is one benchmark class plus one constant here.
 */
public enum Scenario {

    /** {@link UncontendedCallBenchmark}. */
    UNCONTENDED("uncontended sync call, 1 thread", UncontendedCallBenchmark.class, "call", Subjects.SEMAPHORE,
            UncontendedCallBenchmark.GATES),
    /** {@link ContendedCallBenchmark}, 2 threads. */
    CONTENDED_2("contended sync call, 2 threads", ContendedCallBenchmark.class, "threads2", Subjects.SEMAPHORE,
            ContendedCallBenchmark.GATES),
    /** {@link ContendedCallBenchmark}, 4 threads. */
    CONTENDED_4("contended sync call, 4 threads", ContendedCallBenchmark.class, "threads4", Subjects.SEMAPHORE,
            ContendedCallBenchmark.GATES),
    /** {@link ContendedCallBenchmark}, 8 threads. */
    CONTENDED_8("contended sync call, 8 threads", ContendedCallBenchmark.class, "threads8", Subjects.SEMAPHORE,
            ContendedCallBenchmark.GATES),
    /** {@link RejectionBenchmark}. */
    REJECTION("rejection (limit 1 held, no queue)", RejectionBenchmark.class, "refused", Subjects.SEMAPHORE,
            RejectionBenchmark.GATES),
    /** {@link HandOffBenchmark}: the floor is the fair semaphore, and the FIFO column matters. */
    HAND_OFF("hand-off (limit 1, queue, 4 threads)", HandOffBenchmark.class, "handOff", Subjects.SEMAPHORE_FAIR,
            HandOffBenchmark.GATES),
    /** {@link AsyncCallBenchmark}. */
    ASYNC("async call, stage already complete", AsyncCallBenchmark.class, "callAsync", Subjects.SEMAPHORE,
            AsyncCallBenchmark.GATES),
    /** {@link AsyncHandOffBenchmark}: no subject without a non-blocking wait can take part, so no floor. */
    ASYNC_HAND_OFF("async hand-off (limit 1, holder + 3 queued, per cycle)", AsyncHandOffBenchmark.class, "handOff",
            null, AsyncHandOffBenchmark.GATES),
    /** {@link ListenerBenchmark}, sync. */
    LISTENER_SYNC("listener off / on, sync call", ListenerBenchmark.class, "call", Subjects.BULWARK,
            ListenerBenchmark.GATES),
    /** {@link ListenerBenchmark}, async. */
    LISTENER_ASYNC("listener off / on, async call", ListenerBenchmark.class, "callAsync", Subjects.BULWARK,
            ListenerBenchmark.GATES),
    /** {@link PipelineBenchmark}, sync: the floor is the bare bulkhead. */
    PIPELINE_SYNC("pipeline (retry [+ timeout] + bulkhead), sync", PipelineBenchmark.class, "call",
            Subjects.BULWARK, PipelineBenchmark.GATES),
    /** {@link PipelineBenchmark}, async. */
    PIPELINE_ASYNC("pipeline (retry [+ timeout] + bulkhead), async", PipelineBenchmark.class, "callAsync",
            Subjects.BULWARK, PipelineBenchmark.GATES),
    /** {@link ProductionStackBenchmark}: the bare bulkhead of each library (issue 20's table, first row). */
    STACK_BULKHEAD("production stack: bulkhead", ProductionStackBenchmark.class, "bulkhead", null,
            ProductionStackBenchmark.GATES),
    /** {@link ProductionStackBenchmark}: with Micrometer metrics bound (Failsafe: listeners). */
    STACK_METRICS("production stack: bulkhead + Micrometer metrics", ProductionStackBenchmark.class, "metrics", null,
            ProductionStackBenchmark.GATES),
    /** {@link ProductionStackBenchmark}: a retry around the bulkhead. */
    STACK_RETRY("production stack: retry + bulkhead", ProductionStackBenchmark.class, "retry", null,
            ProductionStackBenchmark.GATES),
    /** {@link ProductionStackBenchmark}: a retry and a timeout around the bulkhead. */
    STACK_RETRY_TIMEOUT("production stack: retry + timeout + bulkhead", ProductionStackBenchmark.class,
            "retryTimeout", null, ProductionStackBenchmark.GATES),
    /** {@link PerKeyBenchmark}: the floor is one independent bulkhead per key. */
    PER_KEY("per key: 2 threads on 2 keys", PerKeyBenchmark.class, "call", Subjects.BULWARK_INDEPENDENT,
            PerKeyBenchmark.GATES),
    /** {@link PerKeyBenchmark} with one thread: the reference that shows whether a second key costs anything. */
    PER_KEY_ONE_THREAD("per key: 1 thread on 1 key", PerKeyBenchmark.class, "oneThread",
            Subjects.BULWARK_INDEPENDENT, PerKeyBenchmark.GATES);

    private final String title;
    private final Class<?> benchmarkClass;
    private final String method;
    private final String floor;
    private final List<Check> gates;

    Scenario(String title, Class<?> benchmarkClass, String method, String floor, Check[] gates) {
        this.title = title;
        this.benchmarkClass = benchmarkClass;
        this.method = method;
        this.floor = floor;
        this.gates = List.of(gates);
    }

    /**
     * Returns the row title shown in the table.
     *
     * @return the title
     */
    public String title() {
        return title;
    }

    /**
     * Returns the benchmark's name as {@link Measurement#benchmark()} spells it.
     *
     * @return {@code SimpleClassName.method}
     */
    public String benchmark() {
        return benchmarkClass.getSimpleName() + "." + method;
    }

    /**
     * Returns the subject the others are compared with: the cheapest correct thing a user could write by hand.
     *
     * @return the floor subject, or empty when no such subject can run the scenario
     */
    public Optional<String> floor() {
        return Optional.ofNullable(floor);
    }

    /**
     * Returns the checks a subject must pass to be measured in this scenario.
     *
     * @return the checks
     */
    public List<Check> gates() {
        return gates;
    }

    /**
     * Returns whether the FIFO property is part of what this scenario compares.
     *
     * @return {@code true} for the synchronous hand-off
     */
    public boolean comparesFifo() {
        return this == HAND_OFF;
    }

    /**
     * Returns the subjects the benchmark runs, read from its {@code subject} parameter.
     *
     * @return the subject names, in the benchmark's order
     */
    public List<String> subjects() {
        try {
            return List.of(benchmarkClass.getField("subject").getAnnotation(Param.class).value());
        } catch (NoSuchFieldException missing) {
            throw new IllegalStateException(benchmarkClass + " has no public 'subject' parameter", missing);
        }
    }
}
