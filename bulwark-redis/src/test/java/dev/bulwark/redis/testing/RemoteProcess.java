package dev.bulwark.redis.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A second JVM running {@link RemoteInstance} from this test class path; its output is read line by line. */
public final class RemoteProcess implements AutoCloseable {

    private final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> all = new ArrayList<>();

    private RemoteProcess(Process process) {
        this.process = process;
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    synchronized (all) {
                        all.add(line);
                    }
                    lines.add(line);
                }
            } catch (IOException ignored) {
                // The process was killed.
            }
        }, "remote-output");
        reader.setDaemon(true);
        reader.start();
    }

    public static RemoteProcess start(String... arguments) throws IOException {
        return startMain(RemoteInstance.class, List.of(), arguments);
    }

    /** Starts {@code mainClass} from this test class path in a JVM with the given options (heap, GC). */
    public static RemoteProcess startMain(Class<?> mainClass, List<String> jvmOptions, String... arguments)
            throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of(java));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass.getName()));
        command.addAll(List.of(arguments));
        return new RemoteProcess(new ProcessBuilder(command).redirectErrorStream(true).start());
    }

    /** Whether the JVM still runs. */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** Waits for the first output line starting with {@code prefix}. */
    public String awaitLine(String prefix, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (;;) {
            long remaining = deadline - System.nanoTime();
            String line = remaining > 0 ? lines.poll(Math.min(remaining, 200_000_000L), TimeUnit.NANOSECONDS) : null;
            if (line == null && remaining > 0 && (process.isAlive() || !lines.isEmpty())) {
                continue;
            }
            if (line == null) {
                throw new AssertionError("The second JVM printed no line starting with '" + prefix + "' within "
                        + timeout + "; its output: " + output() + (process.isAlive() ? "" : " (exited "
                        + process.exitValue() + ")"));
            }
            if (line.startsWith(prefix)) {
                return line;
            }
        }
    }

    public String output() {
        synchronized (all) {
            return String.join("\n", all);
        }
    }

    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        kill();
    }
}
