package dev.bulwark.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The records a {@code java.util.logging} logger (the JDK's default back end of {@code System.Logger}) receives
 * between {@link #start} and {@link #close}, at every level (DEBUG arrives as FINE), and not printed.
 */
public final class CapturedLog implements AutoCloseable {

    private final Logger logger;
    private final Level levelBefore;
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            records.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    private CapturedLog(String loggerName) {
        this.logger = Logger.getLogger(loggerName); // held here: JUL keeps its loggers weakly
        this.levelBefore = logger.getLevel();
        logger.setLevel(Level.ALL);
        logger.setUseParentHandlers(false);
        logger.addHandler(handler);
    }

    /**
     * Starts capturing what the named logger receives.
     *
     * @param loggerName the logger, e.g. {@code dev.bulwark.Bulkhead}
     * @return the capture; close it to restore the logger
     */
    public static CapturedLog start(String loggerName) {
        return new CapturedLog(loggerName);
    }

    /**
     * Returns the records so far whose message starts with {@code prefix} and contains {@code part}.
     *
     * @return them, in the order they were logged
     */
    public List<LogRecord> matching(String prefix, String part) {
        return records.stream().filter(record -> record.getMessage().startsWith(prefix)
                && record.getMessage().contains(part)).toList();
    }

    /** Restores the logger's level and handlers. */
    @Override
    public void close() {
        logger.removeHandler(handler);
        logger.setUseParentHandlers(true);
        logger.setLevel(levelBefore);
    }
}
