package dev.bulwark.lab;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * A slowdown by a held lock ({@code slowdown --slowed-by lock}): one session of its own locks every hot row
 * ({@code SELECT id FROM hot FOR UPDATE}) for {@link #HOLD_MILLIS}, commits, waits {@link #GAP_MILLIS}, and again,
 * as a batch job's transactions on the same counters would. Every transaction of the service updates a hot row, so
 * while the lock is held every one of them waits on it, holding its pooled connection: the database does no work for
 * the service at all, rather than less of it as under {@link CompetingQueries}.
 *
 * <p>Not thread-safe: {@link #start()} and {@link #stop()} alternate, from one thread at a time.
 */
final class HeldLock implements DatabaseSlowdown {

    /** How long each lock is held. */
    static final long HOLD_MILLIS = 300;
    /** How long the rows are free between two locks. */
    static final long GAP_MILLIS = 200;
    /** How often a pause looks whether the slowdown was stopped. */
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    private final Connection connection;
    private final LongAdder completed = new LongAdder();
    private volatile boolean running;
    private Thread thread;

    /**
     * Opens the session (idle until {@link #start()}).
     *
     * @param jdbcUrl the database
     * @throws SQLException when PostgreSQL refuses
     */
    HeldLock(String jdbcUrl) throws SQLException {
        connection = DriverManager.getConnection(jdbcUrl, PostgresServer.USER, "");
        connection.setAutoCommit(false);
    }

    @Override
    public void start() {
        running = true;
        thread = new Thread(this::loop, "lab-held-lock");
        thread.setDaemon(true);
        thread.start();
    }

    private void loop() {
        try (Statement statement = connection.createStatement()) {
            while (running) {
                statement.execute("SELECT id FROM hot FOR UPDATE");
                pause(HOLD_MILLIS);
                // The commit releases the locks, also when stop() cut the hold short.
                connection.commit();
                completed.increment();
                pause(GAP_MILLIS);
            }
        } catch (SQLException e) {
            try {
                connection.rollback();
            } catch (SQLException ignored) {
                // The session is gone, and its locks with it.
            }
        }
    }

    /** Waits {@code millis}, or less when the slowdown is stopped meanwhile. */
    private void pause(long millis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        long left;
        while (running && (left = deadline - System.nanoTime()) > 0) {
            LockSupport.parkNanos(Math.min(left, POLL_NANOS));
        }
    }

    @Override
    public void stop() throws InterruptedException {
        running = false;
        if (thread != null) {
            thread.join();
        }
    }

    @Override
    public long completed() {
        return completed.sum();
    }

    @Override
    public String describe() {
        return "1 session holds every hot row's lock (SELECT id FROM hot FOR UPDATE) for " + HOLD_MILLIS
                + " ms, then frees it for " + GAP_MILLIS + " ms";
    }

    @Override
    public void close() throws InterruptedException, SQLException {
        stop();
        connection.close();
    }
}
