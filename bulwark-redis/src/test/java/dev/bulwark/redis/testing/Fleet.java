package dev.bulwark.redis.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Several {@link FleetWorker} JVMs on one bulkhead: started together, stopped together by a stop file, their call
 * logs read into one {@link CallLog}. The JVMs run with a small heap, the serial collector and C1 only, so that a
 * fleet of 16 fits on a shared 2-core machine.
 */
public final class Fleet implements AutoCloseable {

    private static final List<String> JVM_OPTIONS = List.of("-Xmx128m", "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1");
    private static final Pattern DONE = Pattern.compile("DONE attempts=(\\d+) completed=(\\d+) refused=(\\d+) "
            + "errors=(\\d+) admitted=(\\d+) released=(\\d+)");
    private static final Pattern STATUS = Pattern.compile("STATUS completed=(\\d+) lastStarted=(-?\\d+)");

    /** What one worker printed last: its own tally of its calls, and its listener's. */
    public record Done(long attempts, long completed, long refused, long errors, long admitted, long released) {
    }

    private final Path directory;
    private final Path stopFile;
    private final List<RemoteProcess> workers = new ArrayList<>();
    private final List<Path> logs = new ArrayList<>();

    private Fleet(Path directory) {
        this.directory = directory;
        this.stopFile = directory.resolve("stop");
    }

    /**
     * Starts {@code jvms} workers with the given {@code key=value} options (all but {@code stopFile} and
     * {@code log}, which the fleet adds) and waits until every one has built its bulkhead.
     */
    public static Fleet start(int jvms, List<String> options) throws IOException, InterruptedException {
        Fleet fleet = new Fleet(Files.createTempDirectory("bulwark-fleet-"));
        try {
            for (int i = 0; i < jvms; i++) {
                Path log = fleet.directory.resolve("calls-" + i + ".log");
                fleet.logs.add(log);
                List<String> arguments = new ArrayList<>(options);
                arguments.add("stopFile=" + fleet.stopFile);
                arguments.add("log=" + log);
                fleet.workers.add(RemoteProcess.startMain(FleetWorker.class, JVM_OPTIONS,
                        arguments.toArray(String[]::new)));
            }
            for (RemoteProcess worker : fleet.workers) {
                worker.awaitLine("READY", Duration.ofSeconds(90));
            }
            return fleet;
        } catch (IOException | InterruptedException | RuntimeException | AssertionError failure) {
            fleet.close();
            throw failure;
        }
    }

    /** Waits until every worker has started a call after {@code micros} (epoch µs). */
    public void awaitEveryWorkerStartedAfter(long micros, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (RemoteProcess worker : workers) {
            for (;;) {
                Duration left = Duration.ofNanos(Math.max(1, deadline - System.nanoTime()));
                Matcher status = STATUS.matcher(worker.awaitLine("STATUS", left));
                if (status.find() && Long.parseLong(status.group(2)) > micros) {
                    break;
                }
            }
        }
    }

    /** Asks every worker to stop, waits for each one's tally and returns them. */
    public List<Done> stop(Duration timeout) throws IOException, InterruptedException {
        Files.writeString(stopFile, "stop");
        List<Done> tallies = new ArrayList<>();
        for (RemoteProcess worker : workers) {
            String line = worker.awaitLine("DONE", timeout);
            Matcher done = DONE.matcher(line);
            if (!done.find()) {
                throw new AssertionError("unexpected tally: " + line);
            }
            tallies.add(new Done(Long.parseLong(done.group(1)), Long.parseLong(done.group(2)),
                    Long.parseLong(done.group(3)), Long.parseLong(done.group(4)), Long.parseLong(done.group(5)),
                    Long.parseLong(done.group(6))));
        }
        return tallies;
    }

    /** The calls every worker logged; call after {@link #stop}. */
    public CallLog log() throws IOException {
        return CallLog.read(logs);
    }

    /** Kills whatever still runs and deletes the logs (kept with {@code -Dbulwark.fleet.keepLogs=true}). */
    @Override
    public void close() throws InterruptedException {
        for (RemoteProcess worker : workers) {
            worker.kill();
        }
        if (Boolean.getBoolean("bulwark.fleet.keepLogs")) {
            System.out.println("Fleet logs kept in " + directory);
            return;
        }
        try (java.util.stream.Stream<Path> files = Files.list(directory)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Files.deleteIfExists(file);
            }
            Files.deleteIfExists(directory);
        } catch (IOException ignored) {
            // Best effort: a temporary directory.
        }
    }
}
