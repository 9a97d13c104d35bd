package dev.bulwark.lab;

/**
 * How one request of the load generator ended.
 */
enum Outcome {
    /** 200 within the client's timeout. */
    OK,
    /** 503: the guard refused it at once (or after its maximum wait). */
    REFUSED,
    /** 503: HikariCP had no connection for it within its connection timeout. */
    POOL_TIMEOUT,
    /** The client gave up: no answer within its timeout. */
    CLIENT_TIMEOUT,
    /** Anything else: another status, a connection failure. */
    ERROR
}
