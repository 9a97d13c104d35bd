/**
 * gRPC interceptors for Bulwark: inbound load shedding for servers and bulkheaded outgoing calls for clients.
 *
 * <p>Only {@code dev.bulwark.grpc} is exported; {@code dev.bulwark.grpc.internal} is implementation.
 */
module dev.bulwark.grpc {
    requires transitive dev.bulwark;
    requires transitive io.grpc;

    exports dev.bulwark.grpc;
}
