package dev.bulwark.lab;

/**
 * What slows the database during the second stage of {@link Scenario#SLOWDOWN}, from outside the service (sessions
 * of its own, as another application's would be): {@link CompetingQueries} take the database's CPU, {@link HeldLock}
 * holds the rows every transaction of the service updates.
 *
 * <p>Not thread-safe: {@link #start()} and {@link #stop()} alternate, from one thread at a time.
 */
interface DatabaseSlowdown extends AutoCloseable {

    /** Starts slowing the database, in threads of its own; returns at once. */
    void start();

    /**
     * Stops slowing the database and returns once the database is as before (nothing of this slowdown running or
     * held).
     *
     * @throws InterruptedException when interrupted while waiting
     */
    void stop() throws InterruptedException;

    /**
     * Returns how many rounds of the slowdown completed so far: queries run to their end, or locks held and released.
     *
     * @return a running count
     */
    long completed();

    /**
     * Describes the slowdown for the report.
     *
     * @return one clause, "4 sessions run ... back to back" say
     */
    String describe();

    /**
     * Stops the slowdown and closes its sessions.
     *
     * @throws Exception when a session cannot be closed
     */
    @Override
    void close() throws Exception;
}
