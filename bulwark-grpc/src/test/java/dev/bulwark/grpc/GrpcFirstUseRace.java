package dev.bulwark.grpc;

import dev.bulwark.Bulkhead;
import dev.bulwark.testing.FreshJvm;
import dev.bulwark.testing.FreshJvmRace;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A fresh JVM's first calls through both interceptors, raced (the child program of {@link GrpcFirstUseRaceTest}),
 * over the in-process transport: one held call fills the server's bulkhead of {@code Hold}, then one latch releases
 * a thread per entry point, so that the server interceptor's first admission, refusal and cancellation while queued
 * (a deadline that passes), the client interceptor's first local refusal and admission, and the building of new
 * interceptors all run, and initialise this module's classes, at the same moment. Only a hang or an unexpected
 * status fails.
 */
public final class GrpcFirstUseRace {

    private GrpcFirstUseRace() {
    }

    /**
     * Runs the race.
     *
     * @param args none
     * @throws Exception never expected
     */
    public static void main(String[] args) throws Exception {
        FreshJvm.watchdog(Duration.ofSeconds(40));
        Bulkhead serverHold = Bulkhead.builder().name("server-hold").maxConcurrency(1).maxQueue(1).build();
        Bulkhead serverEcho = Bulkhead.builder().name("server-echo").maxConcurrency(4).build();
        BulkheadServerInterceptor server = BulkheadServerInterceptor.builder().perMethod(method ->
                method.equals(HoldService.HOLD) ? Optional.of(serverHold)
                        : method.equals(HoldService.ECHO) ? Optional.of(serverEcho) : Optional.empty()).build();
        Bulkhead clientEcho = Bulkhead.builder().name("client-echo").maxConcurrency(1).maxQueue(0).build();
        Bulkhead clientFail = Bulkhead.builder().name("client-fail").maxConcurrency(4).build();
        BulkheadClientInterceptor client = BulkheadClientInterceptor.builder().perMethod(method ->
                method.equals(HoldService.ECHO) ? Optional.of(clientEcho)
                        : method.equals(HoldService.FAIL) ? Optional.of(clientFail) : Optional.empty()).build();
        HoldService service = new HoldService();
        try (Transport.Running running = Transport.IN_PROCESS.start(service, server)) {
            Channel raw = running.channel();
            Channel intercepted = ClientInterceptors.intercept(raw, client);
            HoldService.Call holder = HoldService.start(raw, HoldService.HOLD, "holder");
            service.nextHeld();
            clientEcho.acquire();

            List<Runnable> callers = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                // Queued (its deadline then cancels the wait) or refused for a full queue, whichever comes first.
                callers.add(() -> expect(raw, HoldService.HOLD, CallOptions.DEFAULT.withDeadlineAfter(300,
                        TimeUnit.MILLISECONDS), Status.Code.DEADLINE_EXCEEDED, Status.Code.RESOURCE_EXHAUSTED));
            }
            callers.add(() -> expect(raw, HoldService.ECHO, CallOptions.DEFAULT, Status.Code.OK));
            callers.add(() -> expect(raw, HoldService.FAIL, CallOptions.DEFAULT, Status.Code.UNKNOWN));
            callers.add(() -> expect(intercepted, HoldService.ECHO, CallOptions.DEFAULT,
                    Status.Code.RESOURCE_EXHAUSTED));
            callers.add(() -> expect(intercepted, HoldService.ECHO, CallOptions.DEFAULT.withDeadlineAfter(5,
                    TimeUnit.SECONDS), Status.Code.RESOURCE_EXHAUSTED));
            callers.add(() -> expect(intercepted, HoldService.FAIL, CallOptions.DEFAULT, Status.Code.UNKNOWN));
            callers.add(() -> {
                BulkheadServerInterceptor.of(serverEcho);
                BulkheadClientInterceptor.of(clientFail);
            });
            FreshJvmRace.race(callers, Duration.ofSeconds(20));
            holder.call().cancel("done", null);
        }
        System.exit(0);
    }

    private static void expect(Channel channel, MethodDescriptor<String, String> method, CallOptions options,
                               Status.Code... allowed) {
        HoldService.Outcome outcome;
        try {
            outcome = HoldService.start(channel, method, "race", options, new Metadata()).await();
        } catch (Exception e) {
            throw new AssertionError(method.getFullMethodName() + " did not end", e);
        }
        if (!Set.of(allowed).contains(outcome.status().getCode())) {
            throw new AssertionError(method.getFullMethodName() + " ended with " + outcome.status());
        }
    }
}
