package dev.bulwark.lab;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.springframework.stereotype.Component;

/**
 * The service's database work for one request, through HikariCP: in one transaction, an update of one of a few hot
 * rows, then a scan, then the commit. The hot row's lock is held during the scan, so calls on the same row queue
 * on the lock and a call's cost grows with how many run at once, as with a real counter or inventory row; the
 * scan makes the work CPU-bound in PostgreSQL, which two cores share.
 *
 * <p>Thread-safe: every call takes its own connection from the pool.
 */
@Component
class DatabaseWork implements DependencyWork {

    /** Rows of the hot table: calls on the same one serialise on its lock. */
    static final int HOT_ROWS = 4;
    /** Rows of the scanned table. */
    static final int SCANNED_ROWS = 40_000;

    private final DataSource dataSource;
    private final CallTimes times = new CallTimes();

    DatabaseWork(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /**
     * Creates and fills the tables (drops them first). Run once before any load.
     *
     * @throws SQLException when PostgreSQL refuses
     */
    void createSchema() throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS hot, items");
            s.execute("CREATE TABLE hot (id int PRIMARY KEY, n bigint NOT NULL)");
            s.execute("INSERT INTO hot SELECT g, 0 FROM generate_series(1, " + HOT_ROWS + ") g");
            s.execute("CREATE TABLE items (id int PRIMARY KEY, v int NOT NULL, pad text NOT NULL)");
            s.execute("INSERT INTO items SELECT g, (g * 7919) % 1000, md5(g::text) FROM generate_series(1, "
                    + SCANNED_ROWS + ") g");
            s.execute("VACUUM ANALYZE items");
        }
    }

    /**
     * Serves one request: takes a connection (HikariCP throws {@link java.sql.SQLTransientConnectionException}
     * when none frees within its connection timeout), updates a random hot row, scans, commits.
     *
     * @return the hot row's new value plus the scan's count
     * @throws SQLException HikariCP's pool timeout or PostgreSQL's error, untouched
     */
    @Override
    public long serve() throws SQLException {
        int row = 1 + ThreadLocalRandom.current().nextInt(HOT_ROWS);
        int bucket = ThreadLocalRandom.current().nextInt(1000);
        try (Connection c = dataSource.getConnection()) {
            long start = System.nanoTime();
            c.setAutoCommit(false);
            try (PreparedStatement update = c.prepareStatement("UPDATE hot SET n = n + 1 WHERE id = ? RETURNING n");
                    PreparedStatement scan = c.prepareStatement(
                            "SELECT count(*) FROM items WHERE v = ? OR pad LIKE '%ab%'")) {
                update.setInt(1, row);
                long result;
                try (ResultSet rs = update.executeQuery()) {
                    rs.next();
                    result = rs.getLong(1);
                }
                scan.setInt(1, bucket);
                try (ResultSet rs = scan.executeQuery()) {
                    rs.next();
                    result += rs.getLong(1);
                }
                c.commit();
                times.record(System.nanoTime() - start);
                return result;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    /**
     * Returns the times of the committed transactions, each from its first statement to the commit (not the wait for
     * a connection).
     *
     * @return running sums
     */
    @Override
    public CallTimes times() {
        return times;
    }
}
