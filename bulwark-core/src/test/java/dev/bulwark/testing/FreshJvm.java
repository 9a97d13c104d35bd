package dev.bulwark.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a {@code main} class of the test class path in a fresh JVM (the same JDK as the test's), so that a test sees
 * what a user's first calls see: no class loaded or initialised, no lambda linked, no thread started.
 *
 * <p>A child guards itself with {@link #watchdog(Duration)}: past its deadline it prints every thread's stack (with
 * the locks and class-initialisation waits) and halts with {@link #HUNG}; the parent kills a child that outlives
 * even that and reports it hung too.
 */
public final class FreshJvm {

    /** The exit code of a child that its watchdog found hung. */
    public static final int HUNG = 3;

    private FreshJvm() {
    }

    /**
     * What one fresh JVM did.
     *
     * @param exitCode its exit code ({@link #HUNG} when it hung)
     * @param output its standard output and error, interleaved
     */
    public record Result(int exitCode, String output) {

        /** Whether the child ran to its end with exit code 0. */
        public boolean succeeded() {
            return exitCode == 0;
        }
    }

    /**
     * Runs {@code mainClass} with {@code args} in a fresh JVM and waits for it.
     *
     * @param mainClass a class with a {@code main} method on the test class path
     * @param deadline how long the parent waits before it kills the child (give the child's watchdog less)
     * @param jvmOptions options before the class name, such as {@code -Dx=y}
     * @param args the program's arguments
     * @return what the child did
     */
    public static Result run(Class<?> mainClass, Duration deadline, List<String> jvmOptions, String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xshare:auto");
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(classPath());
        command.add(mainClass.getName());
        command.addAll(Arrays.asList(args));
        try {
            Path log = Files.createTempFile("fresh-jvm", ".log");
            try {
                Process child = new ProcessBuilder(command).redirectErrorStream(true)
                        .redirectOutput(log.toFile()).start();
                boolean ended = child.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS);
                if (!ended) {
                    child.destroyForcibly().waitFor();
                }
                String output = Files.readString(log, StandardCharsets.UTF_8);
                return new Result(ended ? child.exitValue() : HUNG, output);
            } finally {
                Files.deleteIfExists(log);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while a fresh JVM ran", e);
        }
    }

    /** Surefire's forked JVM runs from a manifest-only jar; the test class path it was given is in a property. */
    private static String classPath() {
        String surefire = System.getProperty("surefire.test.class.path");
        return surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
    }

    /**
     * In a child: halts the JVM with {@link #HUNG} and a dump of every thread unless it has exited within
     * {@code limit}. The watchdog is a daemon thread, so it does not keep a finished child alive.
     *
     * @param limit how long the child may run
     */
    public static void watchdog(Duration limit) {
        Thread dog = new Thread(() -> {
            try {
                // A deadline, not an ordering: the child's own work never waits for this thread.
                Thread.sleep(limit.toMillis());
            } catch (InterruptedException e) {
                return;
            }
            System.out.println("HUNG after " + limit.toMillis() + " ms; threads:");
            System.out.println(threadDump());
            System.out.flush();
            Runtime.getRuntime().halt(HUNG);
        }, "fresh-jvm-watchdog");
        dog.setDaemon(true);
        dog.start();
    }

    /** Every live thread's stack, with its state and the monitor or lock it waits for. */
    public static String threadDump() {
        StringBuilder dump = new StringBuilder();
        for (ThreadInfo info : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
            dump.append('"').append(info.getThreadName()).append("\" ").append(info.getThreadState());
            if (info.getLockName() != null) {
                dump.append(" on ").append(info.getLockName());
            }
            dump.append('\n');
            for (StackTraceElement frame : info.getStackTrace()) {
                dump.append("    at ").append(frame).append('\n');
            }
        }
        return dump.toString();
    }
}
