package dev.bulwark.grpc;

import io.grpc.BindableService;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.io.IOException;
import java.util.UUID;

/** The two real transports every test runs over: Netty (shaded) on loopback TCP, and in-process. */
enum Transport {
    NETTY_LOOPBACK {
        @Override
        Running start(ServerServiceDefinition service) throws IOException {
            Server server = Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
                    .addService(service).build().start();
            ManagedChannel channel = Grpc.newChannelBuilder("127.0.0.1:" + server.getPort(),
                    InsecureChannelCredentials.create()).build();
            return new Running(server, channel);
        }
    },
    IN_PROCESS {
        @Override
        Running start(ServerServiceDefinition service) throws IOException {
            String name = "bulwark-grpc-test-" + UUID.randomUUID();
            Server server = InProcessServerBuilder.forName(name).addService(service).build().start();
            return new Running(server, InProcessChannelBuilder.forName(name).build());
        }
    };

    abstract Running start(ServerServiceDefinition service) throws IOException;

    Running start(BindableService service, ServerInterceptor... interceptors) throws IOException {
        return start(ServerInterceptors.intercept(service, interceptors));
    }

    /** A started server and a channel to it; closing shuts both down. */
    record Running(Server server, ManagedChannel channel) implements AutoCloseable {
        @Override
        public void close() throws InterruptedException {
            channel.shutdownNow();
            server.shutdownNow();
            channel.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
            server.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
        }
    }
}
