package dev.bulwark.lab;

/**
 * One request's work on one of the service's dependencies, the thing a guard stands in front of: the database
 * ({@link DatabaseWork}) or the second HTTP service ({@link RemoteWork}). Each times the calls it completed
 * ({@link CallTimes}), from which an experiment reads the dependency's time of a call alone and its spread.
 *
 * <p>Implementations are thread-safe: Tomcat's worker threads call them concurrently.
 */
interface DependencyWork {

    /**
     * Serves one request's work on the dependency.
     *
     * @return a result derived from the dependency's answer
     * @throws Exception the dependency's own failure, untouched (HikariCP's pool timeout, an I/O error)
     */
    long serve() throws Exception;

    /**
     * Returns the times of the calls completed so far.
     *
     * @return running sums, shared (not a copy)
     */
    CallTimes times();
}
