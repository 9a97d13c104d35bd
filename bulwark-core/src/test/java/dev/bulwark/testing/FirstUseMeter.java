package dev.bulwark.testing;

import java.lang.management.ClassLoadingMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Measures a first use in a {@link FreshJvm} child, and reads the figures back in the parent. A child times a
 * section with {@link #start()} and {@link Section#stop(String, String)}, which prints three lines:
 * <ul>
 *   <li>{@code round.figure=micros}: the wall time of the section, what the caller waited;</li>
 *   <li>{@code round.figure.classes=n}: the classes the JVM loaded meanwhile (any thread), hidden classes of
 *       lambdas and method handles included. A path that loads none is one a warm JVM takes; unlike a time, the
 *       count does not grow when the machine is loaded, so tests can bound it tightly;</li>
 *   <li>{@code round.figure.cpu=micros}: the CPU time every live Java thread spent meanwhile (not the JIT
 *       compiler's), which a loaded machine inflates far less than the wall time.</li>
 * </ul>
 * The parent reads them with {@link #figures(String)}. The round is a name such as {@code cold} or {@code warm}.
 *
 * <p>The class count is the whole JVM's, so it also counts what other threads load meanwhile: in a child that is a
 * client and a server at once, the HTTP client's selector thread loads a varying number of its own lambdas during the
 * first request, depending on how the machine schedules it (3 to 7 seen). A child started with
 * {@link #LOG_CLASS_LOADS} prints each class's name as it is loaded, and {@link #classesLoaded(String, String)} reads
 * back which classes a section loaded, so that a test can bound the ones that matter (Bulwark's own, the server's)
 * and leave out a client's.
 */
public final class FirstUseMeter {

    private static final ClassLoadingMXBean CLASSES = ManagementFactory.getClassLoadingMXBean();
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    /**
     * The JVM option that makes a child print every class it loads, one line each, in order with what it prints
     * itself (both go to standard output, flushed line by line): what {@link #classesLoaded} reads.
     */
    public static final String LOG_CLASS_LOADS = "-Xlog:class+load=info:stdout:uptime";

    /** The line {@link #start()} prints, which opens a section in the child's output. */
    private static final String SECTION_START = "first-use-meter: section starts";
    private static final Pattern CLASS_LOADED = Pattern.compile("^\\[[0-9.]+s\\] (\\S+) source: ");
    private static final Pattern FIGURE = Pattern.compile("^([a-zA-Z0-9]+\\.[a-zA-Z.]+)=(-?\\d+)$", Pattern.MULTILINE);

    static {
        // The meter's own first use (its classes, the management beans' set-up) is paid here, not in a section.
        new Section(0, cpuByThread(), 0).stop(null, null);
    }

    private FirstUseMeter() {
    }

    /**
     * Starts timing a section.
     *
     * @return the running section
     */
    public static Section start() {
        System.out.println(SECTION_START);
        return new Section(CLASSES.getTotalLoadedClassCount(), cpuByThread(), System.nanoTime());
    }

    /**
     * Waits (up to 30 s) for the set-up that the first bulkhead of a JVM starts off the caller's thread (the
     * Flight Recorder events, on {@code bulwark-jfr-setup}) to end, so that the classes it loads and the CPU it
     * spends are not counted in a caller's section. Call it after the first bulkhead is built.
     *
     * @throws InterruptedException when interrupted while waiting
     */
    public static void awaitBackgroundSetUp() throws InterruptedException {
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().equals("bulwark-jfr-setup")) {
                thread.join(30_000);
            }
        }
    }

    /**
     * Returns how many times {@code thread} has parked, waited or blocked on a monitor so far: a caller whose count
     * does not change while something else runs was never held up by it (a thread that only lost its core to it
     * counts nothing). For children whose module cannot read {@code java.management} themselves.
     *
     * @param thread a live thread
     * @return its waited and blocked counts, summed
     */
    public static long waits(Thread thread) {
        @SuppressWarnings("deprecation") // Thread.threadId() is Java 19+; getId() returns the same id.
        ThreadInfo info = THREADS.getThreadInfo(thread.getId());
        return info == null ? 0 : info.getWaitedCount() + info.getBlockedCount();
    }

    /**
     * Returns how many classes the JVM has loaded so far, hidden classes included.
     *
     * @return the total count
     */
    public static long loadedClasses() {
        return CLASSES.getTotalLoadedClassCount();
    }

    /**
     * Prints one figure that is not a section's ({@code round.figure=value}).
     *
     * @param round the round, such as {@code cold}
     * @param figure the figure's name
     * @param value its value
     */
    public static void print(String round, String figure, long value) {
        if (round == null) {
            return;
        }
        // A StringBuilder, not +: the first string concatenation of a shape links a call site, which would load
        // classes in the middle of a child's sections.
        System.out.println(new StringBuilder(round).append('.').append(figure).append('=').append(value));
    }

    /**
     * Reads every {@code round.figure=value} line of a child's output.
     *
     * @param output what the child printed
     * @return the figures by {@code round.figure}
     */
    public static Map<String, Long> figures(String output) {
        Map<String, Long> figures = new HashMap<>();
        Matcher line = FIGURE.matcher(output);
        while (line.find()) {
            figures.put(line.group(1), Long.parseLong(line.group(2)));
        }
        return figures;
    }

    /**
     * Returns the names of the classes a child loaded during one section, in load order: those printed between the
     * section's start and its figures. The child must run with {@link #LOG_CLASS_LOADS}.
     *
     * @param output what the child printed
     * @param section the section's {@code round.figure}, such as {@code cold.shed}
     * @return the classes' names, hidden classes included
     * @throws IllegalArgumentException if the output has no such section
     * @throws IllegalStateException if the child did not log its class loads
     */
    public static List<String> classesLoaded(String output, String section) {
        String[] lines = output.split("\\R");
        int end = -1;
        for (int i = 0; i < lines.length && end < 0; i++) {
            if (lines[i].startsWith(section + "=")) {
                end = i;
            }
        }
        int start = end - 1;
        while (start >= 0 && !lines[start].equals(SECTION_START)) {
            start--;
        }
        if (start < 0) {
            throw new IllegalArgumentException("no section " + section + " in the child's output");
        }
        // The JVM loads hundreds of classes before main: a child that logs them has such lines from the first.
        if (Arrays.stream(lines).limit(1000).noneMatch(line -> CLASS_LOADED.matcher(line).find())) {
            throw new IllegalStateException("the child did not run with " + LOG_CLASS_LOADS);
        }
        List<String> loaded = new ArrayList<>();
        for (int i = start + 1; i < end; i++) {
            Matcher line = CLASS_LOADED.matcher(lines[i]);
            if (line.find()) {
                loaded.add(line.group(1));
            }
        }
        return loaded;
    }

    /**
     * Leaves out of {@code classes} those whose names start with one of {@code prefixes}: what another component in
     * the child (a client's event loop) loads on its own threads, at times its scheduling decides.
     *
     * @param classes class names, as {@link #classesLoaded} returns them
     * @param prefixes the left-out packages, such as {@code "io.netty."}
     * @return the others, in order
     */
    public static List<String> without(List<String> classes, String... prefixes) {
        return classes.stream().filter(name -> Arrays.stream(prefixes).noneMatch(name::startsWith)).toList();
    }

    private static Map<Long, Long> cpuByThread() {
        Map<Long, Long> cpu = new HashMap<>();
        for (long id : THREADS.getAllThreadIds()) {
            cpu.put(id, Math.max(0, THREADS.getThreadCpuTime(id)));
        }
        return cpu;
    }

    /** The CPU time threads spent since {@code before}; a thread that ended meanwhile is not counted. */
    private static long cpuSince(Map<Long, Long> before) {
        long total = 0;
        for (long id : THREADS.getAllThreadIds()) {
            long now = THREADS.getThreadCpuTime(id);
            if (now > 0) {
                total += now - before.getOrDefault(id, 0L);
            }
        }
        return Math.max(0, total);
    }

    /** A section being timed. */
    public static final class Section {

        private final long classes;
        private final Map<Long, Long> cpu;
        private final long started;

        private Section(long classes, Map<Long, Long> cpu, long started) {
            this.classes = classes;
            this.cpu = cpu;
            this.started = started;
        }

        /**
         * Ends the section and prints its three figures.
         *
         * @param round the round, such as {@code cold}
         * @param figure the section's name
         * @return the wall time in microseconds
         */
        public long stop(String round, String figure) {
            long micros = (System.nanoTime() - started) / 1000;
            long loaded = CLASSES.getTotalLoadedClassCount() - classes;
            long cpuMicros = cpuSince(cpu) / 1000;
            print(round, figure, micros);
            print(round, figure + ".classes", loaded);
            print(round, figure + ".cpu", cpuMicros);
            return micros;
        }
    }
}
