package dev.bulwark.grpc;

import io.grpc.BindableService;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A real gRPC service without generated code: {@code Hold} keeps each call open until the test answers it, {@code
 * Echo} answers at once, {@code Fail} throws. Requests and responses are UTF-8 strings.
 */
final class HoldService implements BindableService {

    static final String SERVICE = "bulwark.test.Hold";

    static final MethodDescriptor.Marshaller<String> STRINGS = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(String value) {
            return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public String parse(InputStream stream) {
            try {
                return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };

    static final MethodDescriptor<String, String> HOLD = unary("Hold");
    static final MethodDescriptor<String, String> ECHO = unary("Echo");
    static final MethodDescriptor<String, String> FAIL = unary("Fail");

    /** Calls the service is holding, in the order their handler ran. */
    final BlockingQueue<Held> held = new LinkedBlockingQueue<>();
    /** Every request a handler saw (of any method), to prove a refused or cancelled call never ran. */
    final List<String> started = new CopyOnWriteArrayList<>();

    private static MethodDescriptor<String, String> unary(String name) {
        return MethodDescriptor.<String, String>newBuilder().setType(MethodDescriptor.MethodType.UNARY)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, name))
                .setRequestMarshaller(STRINGS).setResponseMarshaller(STRINGS).build();
    }

    @Override
    public ServerServiceDefinition bindService() {
        return ServerServiceDefinition.builder(SERVICE)
                .addMethod(HOLD, ServerCalls.asyncUnaryCall((request, responses) -> {
                    started.add(request);
                    Held call = new Held(request, (ServerCallStreamObserver<String>) responses);
                    call.responses.setOnCancelHandler(() -> call.cancelledOnServer.complete(null));
                    held.add(call);
                }))
                .addMethod(ECHO, ServerCalls.asyncUnaryCall((request, responses) -> {
                    started.add(request);
                    responses.onNext(request);
                    responses.onCompleted();
                }))
                .addMethod(FAIL, ServerCalls.asyncUnaryCall((request, responses) -> {
                    started.add(request);
                    throw new IllegalStateException("service failed on " + request);
                }))
                .build();
    }

    /** Waits for the next held call. */
    Held nextHeld() throws InterruptedException {
        Held call = held.poll(10, TimeUnit.SECONDS);
        if (call == null) {
            throw new AssertionError("no call reached the service within 10 s");
        }
        return call;
    }

    /** A call the service holds open. */
    static final class Held {
        final String request;
        final ServerCallStreamObserver<String> responses;
        final CompletableFuture<Void> cancelledOnServer = new CompletableFuture<>();

        Held(String request, ServerCallStreamObserver<String> responses) {
            this.request = request;
            this.responses = responses;
        }

        void reply() {
            responses.onNext("done " + request);
            responses.onCompleted();
        }
    }

    /** The end of a client call: its status, trailers and response. */
    record Outcome(Status status, Metadata trailers, String response) {
    }

    /** A started client call: its outcome, and the call itself to cancel it. */
    record Call(ClientCall<String, String> call, CompletableFuture<Outcome> outcome) {
        Outcome await() throws Exception {
            return outcome.get(10, TimeUnit.SECONDS);
        }
    }

    /** Starts a unary call and sends its request without waiting for anything. */
    static Call start(Channel channel, MethodDescriptor<String, String> method, String request,
                      CallOptions options, Metadata headers) {
        ClientCall<String, String> call = channel.newCall(method, options);
        CompletableFuture<Outcome> outcome = new CompletableFuture<>();
        StringBuilder response = new StringBuilder();
        call.start(new ClientCall.Listener<>() {
            @Override
            public void onMessage(String message) {
                response.append(message);
            }

            @Override
            public void onClose(Status status, Metadata trailers) {
                outcome.complete(new Outcome(status, trailers, response.toString()));
            }
        }, headers);
        call.request(2);
        call.sendMessage(request);
        call.halfClose();
        return new Call(call, outcome);
    }

    static Call start(Channel channel, MethodDescriptor<String, String> method, String request) {
        return start(channel, method, request, CallOptions.DEFAULT, new Metadata());
    }
}
