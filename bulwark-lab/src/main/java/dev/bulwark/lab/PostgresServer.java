package dev.bulwark.lab;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A throw-away PostgreSQL server on loopback: {@code initdb} into a new temporary directory, {@code pg_ctl start}
 * on a free port, and on {@link #close()} {@code pg_ctl stop} and the directory deleted.
 *
 * <p>The binaries are Debian's ({@code apt-get install postgresql}, which {@code bin/setup} does): taken from
 * {@code $BULWARK_PG_BIN} when set, else from the newest {@code /usr/lib/postgresql/<version>/bin} (Debian does not
 * put {@code initdb} on the {@code PATH}), else from wherever {@code initdb} on the {@code PATH} really lives.
 * {@code initdb} refuses to run as root: as root (CI runs as root) every command runs through
 * {@code runuser -u postgres} (the user Debian's package creates; {@code nobody} without it), and the data
 * directory is handed to that user.
 *
 * <p>The server is tuned for a lab, not for durability: {@code fsync}, {@code synchronous_commit} and
 * {@code full_page_writes} are off, so that a commit costs no disk flush whose time would vary with the machine's
 * disk. Not thread-safe: start and close it from one thread.
 */
final class PostgresServer implements AutoCloseable {

    /** The database role and database name the lab uses (trust authentication on loopback). */
    static final String USER = "lab";

    private final Path binDir;
    private final Path dataDir;
    private final List<String> asUser;
    private final int port;
    private boolean stopped;

    private PostgresServer(Path binDir, Path dataDir, List<String> asUser, int port) {
        this.binDir = binDir;
        this.dataDir = dataDir;
        this.asUser = asUser;
        this.port = port;
    }

    /**
     * Initialises a new cluster in a temporary directory and starts it on a free loopback port.
     *
     * @return the running server
     * @throws IOException when a binary is missing or a command fails (its output is in the message)
     * @throws InterruptedException when interrupted while waiting for a command
     */
    static PostgresServer start() throws IOException, InterruptedException {
        Path bin = locateBinaries();
        Path dir = Files.createTempDirectory("bulwark-lab-pg");
        List<String> asUser = List.of();
        if (isRoot()) {
            String owner = userExists("postgres") ? "postgres" : "nobody";
            UserPrincipal principal = dir.getFileSystem().getUserPrincipalLookupService()
                    .lookupPrincipalByName(owner);
            Files.setOwner(dir, principal);
            asUser = List.of("runuser", "-u", owner, "--");
        }
        PostgresServer server = new PostgresServer(bin, dir, asUser, freePort());
        try {
            server.run(60, "initdb", "-D", dir.resolve("data").toString(), "-U", USER, "--auth=trust",
                    "-E", "UTF8", "--no-locale", "--no-sync");
            server.run(60, "pg_ctl", "-D", dir.resolve("data").toString(), "-l", dir.resolve("log").toString(),
                    "-w", "-t", "30", "-o", String.join(" ", "-p", Integer.toString(server.port),
                            "-k", dir.toString(), "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=40",
                            "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
                            "-c", "shared_buffers=64MB"),
                    "start");
        } catch (IOException | InterruptedException | RuntimeException e) {
            server.close();
            throw e;
        }
        return server;
    }

    /**
     * Returns the JDBC URL of the server's {@code postgres} database.
     *
     * @return a {@code jdbc:postgresql://127.0.0.1:<port>/postgres} URL
     */
    String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    /**
     * Returns the directory of the binaries in use.
     *
     * @return the directory holding {@code initdb} and {@code pg_ctl}
     */
    Path binDir() {
        return binDir;
    }

    /**
     * Stops the server (fast shutdown: open sessions are ended) and deletes its directory. Idempotent.
     */
    @Override
    public void close() {
        if (stopped) {
            return;
        }
        stopped = true;
        try {
            if (Files.exists(dataDir.resolve("data").resolve("postmaster.pid"))) {
                run(60, "pg_ctl", "-D", dataDir.resolve("data").toString(), "-m", "fast", "-w", "stop");
            }
        } catch (IOException e) {
            System.err.println("bulwark-lab: could not stop PostgreSQL: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            deleteRecursively(dataDir);
        }
    }

    private void run(int timeoutSeconds, String binary, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(asUser);
        command.add(binDir.resolve(binary).toString());
        command.addAll(List.of(args));
        Path output = Files.createTempFile("bulwark-lab-pg", ".out");
        try {
            Process process = new ProcessBuilder(command).directory(Paths.get("/").toFile())
                    .redirectErrorStream(true).redirectOutput(output.toFile()).start();
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException(binary + " did not finish within " + timeoutSeconds + " s");
            }
            if (process.exitValue() != 0) {
                String log = Files.exists(dataDir.resolve("log"))
                        ? "\n" + Files.readString(dataDir.resolve("log"), StandardCharsets.UTF_8) : "";
                throw new IOException(String.join(" ", command) + " exited with " + process.exitValue() + ":\n"
                        + Files.readString(output, StandardCharsets.UTF_8) + log);
            }
        } finally {
            Files.deleteIfExists(output);
        }
    }

    private static Path locateBinaries() throws IOException {
        String fromEnv = System.getenv("BULWARK_PG_BIN");
        if (fromEnv != null && !fromEnv.isBlank()) {
            return requireInitdb(Paths.get(fromEnv));
        }
        Path debian = Paths.get("/usr/lib/postgresql");
        if (Files.isDirectory(debian)) {
            try (Stream<Path> versions = Files.list(debian)) {
                Optional<Path> newest = versions.map(v -> v.resolve("bin"))
                        .filter(b -> Files.isExecutable(b.resolve("initdb")))
                        .max(Comparator.comparingInt(PostgresServer::majorVersion));
                if (newest.isPresent()) {
                    return newest.get();
                }
            }
        }
        String path = System.getenv().getOrDefault("PATH", "");
        for (String entry : path.split(java.io.File.pathSeparator)) {
            Path initdb = Paths.get(entry).resolve("initdb");
            if (!entry.isEmpty() && Files.isExecutable(initdb)) {
                return requireInitdb(initdb.toRealPath().getParent());
            }
        }
        throw new IOException("PostgreSQL's initdb not found (looked in $BULWARK_PG_BIN, /usr/lib/postgresql/*/bin "
                + "and the PATH): run bin/setup, which installs Debian's postgresql package");
    }

    private static Path requireInitdb(Path dir) throws IOException {
        if (!Files.isExecutable(dir.resolve("initdb")) || !Files.isExecutable(dir.resolve("pg_ctl"))) {
            throw new IOException("no executable initdb and pg_ctl in " + dir);
        }
        return dir;
    }

    private static int majorVersion(Path binDir) {
        try {
            return Integer.parseInt(binDir.getParent().getFileName().toString());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static boolean isRoot() throws IOException, InterruptedException {
        Process id = new ProcessBuilder("id", "-u").redirectErrorStream(true).start();
        String uid = new String(id.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        id.waitFor();
        return "0".equals(uid);
    }

    private static boolean userExists(String name) {
        try {
            Process id = new ProcessBuilder("id", "-u", name).redirectErrorStream(true).start();
            id.getInputStream().readAllBytes();
            return id.waitFor() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            System.err.println("bulwark-lab: could not delete " + dir + ": " + e.getMessage());
        }
    }
}
