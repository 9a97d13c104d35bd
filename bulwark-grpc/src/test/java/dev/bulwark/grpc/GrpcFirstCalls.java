package dev.bulwark.grpc;

import dev.bulwark.Bulkhead;
import dev.bulwark.testing.FirstUseMeter;
import dev.bulwark.testing.FreshJvm;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The child program of {@link GrpcFirstCallsTest}: a fresh JVM's first refusals by {@link BulkheadServerInterceptor}
 * over a real transport (Netty on loopback, or in-process; the first argument), timed on the transport's thread
 * and by the client. gRPC's own first-call costs are paid before anything is timed: a call answered, a call whose
 * service throws (the transport's first close with an error status) and a call held open, each admitted through
 * the bulkhead; then refused calls follow, each against the full bulkhead (limit 1, queue 0). Prints, with
 * {@link FirstUseMeter}, for the first refusal ({@code cold}) and a later one ({@code warm}):
 * <ul>
 *   <li>{@code intercept}: the interceptor's {@code interceptCall} of the refused call, on the transport's thread:
 *       the whole refusal, the call's close included; {@code intercept.classes}: the classes the JVM loaded
 *       meanwhile;</li>
 *   <li>{@code client}: from the client's start of the call to its {@code onClose}.</li>
 * </ul>
 * A line {@code round.unexpected=1} reports a call that was not refused with {@code RESOURCE_EXHAUSTED}.
 */
public final class GrpcFirstCalls {

    private GrpcFirstCalls() {
    }

    /**
     * Runs the rounds.
     *
     * @param args the transport: {@code NETTY_LOOPBACK} or {@code IN_PROCESS}
     * @throws Exception never expected
     */
    public static void main(String[] args) throws Exception {
        FreshJvm.watchdog(Duration.ofSeconds(40));
        Transport transport = Transport.valueOf(args[0]);
        Bulkhead bulkhead = Bulkhead.builder().name("grpc-first").maxConcurrency(1).maxQueue(0).build();
        HoldService service = new HoldService();
        Timing timing = new Timing(BulkheadServerInterceptor.of(bulkhead));
        // ServerInterceptors.intercept runs the last interceptor given first: the timing one wraps the bulkhead's.
        try (Transport.Running running = transport.start(service, timing.inner, timing)) {
            // gRPC's own first calls: an answered one and one that fails (the transport's first close with an error
            // status and a description), each admitted through the bulkhead.
            HoldService.start(running.channel(), HoldService.ECHO, "warm-up").await();
            HoldService.start(running.channel(), HoldService.FAIL, "warm-up").await();
            // The client may see a call's close before the server's side of it has released its slot: wait for the
            // release, or the holder below could find the bulkhead still full and be refused.
            long releasedBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (bulkhead.executingCount() != 0 && System.nanoTime() - releasedBy < 0) {
                Thread.onSpinWait();
            }
            HoldService.Call holder = HoldService.start(running.channel(), HoldService.HOLD, "holder");
            HoldService.Held held = service.nextHeld();
            timing.forgetWarmUp();
            for (String round : new String[] {"cold", "warm", "warm2"}) {
                FirstUseMeter.Section client = FirstUseMeter.start();
                HoldService.Outcome outcome = HoldService.start(running.channel(), HoldService.ECHO, round).await();
                client.stop(round, "client");
                timing.printLast(round);
                if (outcome.status().getCode() != Status.Code.RESOURCE_EXHAUSTED) {
                    FirstUseMeter.print(round, "unexpected", 1);
                }
            }
            held.reply();
            holder.await();
        }
        System.out.flush();
        System.exit(0);
    }

    /** Times the inner interceptor's interceptCall of each refused call, on the transport's thread. */
    private static final class Timing implements ServerInterceptor {
        final ServerInterceptor inner;
        /** Each refused call's interceptCall time, in microseconds: the client may see the close before it ends. */
        private final BlockingQueue<Long> intercepts = new LinkedBlockingQueue<>();
        /** The classes the JVM loaded meanwhile. */
        private final BlockingQueue<Long> interceptClasses = new LinkedBlockingQueue<>();

        Timing(ServerInterceptor inner) {
            this.inner = inner;
        }

        @Override
        public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(ServerCall<ReqT, RespT> call, Metadata headers,
                                                                     ServerCallHandler<ReqT, RespT> next) {
            if (!call.getMethodDescriptor().equals(HoldService.ECHO)) {
                return next.startCall(call, headers);
            }
            // Printed by the main thread once the client saw the call end.
            long classes = FirstUseMeter.loadedClasses();
            long started = System.nanoTime();
            ServerCall.Listener<ReqT> listener = next.startCall(call, headers);
            long ended = System.nanoTime();
            interceptClasses.add(FirstUseMeter.loadedClasses() - classes);
            intercepts.add((ended - started) / 1000);
            return listener;
        }

        /** Drops the figures of the warm-up calls, which were admitted. */
        void forgetWarmUp() {
            intercepts.clear();
            interceptClasses.clear();
        }

        void printLast(String round) throws InterruptedException {
            Long micros = intercepts.poll(10, TimeUnit.SECONDS);
            FirstUseMeter.print(round, "intercept", micros == null ? -1 : micros);
            Long classes = interceptClasses.poll(10, TimeUnit.SECONDS);
            FirstUseMeter.print(round, "intercept.classes", classes == null ? -1 : classes);
        }
    }
}
