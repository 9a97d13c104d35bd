/**
 * A {@link java.net.http.HttpClient} decorator that sends every request through a Bulwark bulkhead or pipeline.
 *
 * <p>A module of its own so that the core module keeps requiring nothing but {@code java.base} and {@code jdk.jfr}:
 * an application that never sends HTTP with the JDK client does not have to ship {@code java.net.http} in its image.
 * Only {@code dev.bulwark.http} is exported; {@code dev.bulwark.http.internal} is implementation.
 */
module dev.bulwark.http {
    requires transitive dev.bulwark;
    requires transitive java.net.http;

    exports dev.bulwark.http;
}
