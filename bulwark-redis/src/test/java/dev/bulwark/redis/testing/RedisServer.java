package dev.bulwark.redis.testing;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real {@code redis-server} for tests: started on a free loopback port (never 6379) with no persistence, so a
 * restart loses every key and the script cache, as a crashed unpersisted server would. Fails with instructions
 * when the binary is missing.
 */
public final class RedisServer implements AutoCloseable {

    private static final String INSTALL_HINT = "redis-server is not installed (looked on PATH and in /usr/bin, "
            + "/usr/local/bin): install it with 'sudo apt-get install redis-server' (or run bin/setup), then run "
            + "the tests again";

    private final int port;
    private final List<String> extraArguments;
    private final Path directory;
    private final String configText;
    private Process process;

    private RedisServer(int port, List<String> extraArguments, String configText) throws IOException {
        this.port = port;
        this.extraArguments = extraArguments;
        this.directory = Files.createTempDirectory("bulwark-redis-");
        this.configText = configText;
    }

    /** Starts a server on a free port. */
    public static RedisServer start(String... extraArguments) {
        return startWithConfig(null, extraArguments);
    }

    /**
     * Starts a server on a free port whose configuration file (written to its directory and passed first, as
     * {@code redis-server --sentinel} requires a writable one) holds {@code configText}; {@code null} for none.
     */
    public static RedisServer startWithConfig(String configText, String... extraArguments) {
        try {
            RedisServer server = new RedisServer(freePort(), List.of(extraArguments), configText);
            server.startProcess();
            return server;
        } catch (IOException e) {
            throw new IllegalStateException("Could not start redis-server", e);
        }
    }

    /** Kills the server with SIGKILL (kill -9): no shutdown, no last replication, as a crashed host would. */
    public void kill() {
        Process current = process;
        if (current == null) {
            return;
        }
        current.destroyForcibly();
        try {
            current.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process = null;
    }

    /** The server's log file, for failure messages. */
    public String log() {
        return readLog();
    }

    public int port() {
        return port;
    }

    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    public boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** Stops the server (SIGTERM, then SIGKILL), like an outage. */
    public void stop() {
        Process current = process;
        if (current == null) {
            return;
        }
        if (current.isAlive()) {
            // A paused server ignores SIGTERM until it runs again.
            signal("-CONT");
        }
        current.destroy();
        try {
            if (!current.waitFor(10, TimeUnit.SECONDS)) {
                current.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process = null;
    }

    /**
     * Freezes the server process ({@code kill -STOP}): its connections stay open but nothing is answered, like a
     * server stuck in a long pause. {@link #resume()} lets it go on where it stopped.
     */
    public void pause() {
        signal("-STOP");
    }

    /** Lets a {@link #pause() paused} server run again ({@code kill -CONT}). */
    public void resume() {
        signal("-CONT");
    }

    private void signal(String signal) {
        Process current = process;
        if (current == null) {
            throw new IllegalStateException("redis-server on port " + port + " is not running");
        }
        try {
            Process kill = new ProcessBuilder("kill", signal, Long.toString(current.pid())).inheritIO().start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill " + signal + " " + current.pid() + " failed");
            }
        } catch (IOException e) {
            throw new IllegalStateException("Could not run kill " + signal, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Starts the stopped server again on the same port, empty. */
    public void restart() {
        stop();
        try {
            startProcess();
        } catch (IOException e) {
            throw new IllegalStateException("Could not restart redis-server on port " + port, e);
        }
    }

    /**
     * Stops the server and deletes its directory (configuration, logs, any dump): each test's servers used to leave
     * theirs in the temporary directory (1,248 of them on this project's machine). A file that cannot be deleted is
     * left; closing never fails the test for it.
     */
    @Override
    public void close() {
        stop();
        try (Stream<Path> files = Files.list(directory)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Files.deleteIfExists(file);
            }
            Files.deleteIfExists(directory);
        } catch (IOException leftBehind) {
            // Only disk space is at stake.
        }
    }

    private void startProcess() throws IOException {
        List<String> command = new ArrayList<>(List.of(binary()));
        if (configText != null) {
            Path config = directory.resolve("redis.conf");
            Files.writeString(config, configText);
            command.add(config.toString());
        }
        command.addAll(List.of("--port", Integer.toString(port), "--bind",
                "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "no", "--daemonize", "no",
                "--dir", directory.toString(), "--logfile", directory.resolve("redis.log").toString()));
        command.addAll(extraArguments);
        process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(directory.resolve("stdout.log").toFile()).start();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        IOException last = null;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("redis-server exited with " + process.exitValue() + ": "
                        + Files.readString(directory.resolve("stdout.log")) + readLog());
            }
            try {
                if (ping()) {
                    return;
                }
            } catch (IOException notYet) {
                last = notYet;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        throw new IllegalStateException("redis-server did not answer PING on port " + port + ": " + readLog(), last);
    }

    private String readLog() {
        try {
            return Files.readString(directory.resolve("redis.log"));
        } catch (IOException e) {
            return "(no log)";
        }
    }

    private boolean ping() throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(1000);
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[7];
            int read = in.readNBytes(buffer, 0, 7);
            return read == 7 && new String(buffer, StandardCharsets.US_ASCII).startsWith("+PONG");
        }
    }

    private static String binary() {
        String path = System.getenv().getOrDefault("PATH", "");
        List<String> candidates = new ArrayList<>();
        for (String entry : path.split(File.pathSeparator)) {
            candidates.add(entry + File.separator + "redis-server");
        }
        candidates.add("/usr/bin/redis-server");
        candidates.add("/usr/local/bin/redis-server");
        for (String candidate : candidates) {
            File file = new File(candidate);
            if (file.isFile() && file.canExecute()) {
                return file.getAbsolutePath();
            }
        }
        throw new IllegalStateException(INSTALL_HINT);
    }

    private static int freePort() throws IOException {
        for (int attempt = 0; attempt < 20; attempt++) {
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                int port = socket.getLocalPort();
                if (port != 6379) {
                    return port;
                }
            }
        }
        throw new IOException("No free loopback port");
    }
}
