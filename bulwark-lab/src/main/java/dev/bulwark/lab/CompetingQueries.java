package dev.bulwark.lab;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * The {@link Scenario#SLOWDOWN} experiment's default slowdown ({@code --slowed-by queries}): {@link #SESSIONS}
 * sessions of their own (outside the service's HikariCP pool, as another application's report would be) that run
 * {@link #QUERY}, a heavy self-join of the scanned table, back to back from {@link #start()} to {@link #stop()}.
 * Each query is CPU work in
 * PostgreSQL (one backend each, parallel query off), which shares the machine's cores with the service's
 * transactions: while they run, every transaction of the service takes longer.
 *
 * <p>Not thread-safe: {@link #start()} and {@link #stop()} alternate, from one thread at a time.
 */
final class CompetingQueries implements DatabaseSlowdown {

    /** How many sessions run the query at once. */
    static final int SESSIONS = 4;
    /** The heavy query: about 1.6 million joined pairs of the scanned table, compared on a text column. */
    static final String QUERY = "SELECT count(*) FROM items a JOIN items b ON a.v = b.v WHERE a.pad < b.pad";

    private final List<Connection> connections = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final List<Statement> statements = new ArrayList<>();
    private final LongAdder completed = new LongAdder();
    private volatile boolean running;

    /**
     * Opens the sessions (idle until {@link #start()}).
     *
     * @param jdbcUrl the database
     * @throws SQLException when PostgreSQL refuses
     */
    CompetingQueries(String jdbcUrl) throws SQLException {
        for (int i = 0; i < SESSIONS; i++) {
            Connection c = DriverManager.getConnection(jdbcUrl, PostgresServer.USER, "");
            connections.add(c);
            try (Statement s = c.createStatement()) {
                s.execute("SET max_parallel_workers_per_gather = 0");
            }
            statements.add(c.createStatement());
        }
    }

    /** Starts running the query back to back in every session. */
    @Override
    public void start() {
        running = true;
        threads.clear();
        for (int i = 0; i < SESSIONS; i++) {
            Statement statement = statements.get(i);
            Thread t = new Thread(() -> loop(statement), "lab-competing-" + i);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
    }

    private void loop(Statement statement) {
        while (running) {
            try {
                statement.execute(QUERY);
                completed.increment();
            } catch (SQLException e) {
                // Cancelled by stop(), or a failure: either way this session stops competing.
                return;
            }
        }
    }

    /**
     * Stops the queries: cancels those running and waits until every session is idle.
     *
     * @throws InterruptedException when interrupted while waiting
     */
    @Override
    public void stop() throws InterruptedException {
        running = false;
        for (int i = 0; i < threads.size(); i++) {
            // Cancelled again until the session's thread ends: a query begun just after a cancel still stops.
            while (threads.get(i).isAlive()) {
                try {
                    statements.get(i).cancel();
                } catch (SQLException e) {
                    // Nothing running to cancel at this instant.
                }
                threads.get(i).join(20);
            }
        }
    }

    /**
     * Returns how many queries completed so far (a cancelled one does not count).
     *
     * @return a running count
     */
    @Override
    public long completed() {
        return completed.sum();
    }

    @Override
    public String describe() {
        return SESSIONS + " sessions run " + QUERY + " back to back";
    }

    @Override
    public void close() throws InterruptedException, SQLException {
        stop();
        for (Connection c : connections) {
            c.close();
        }
    }
}
