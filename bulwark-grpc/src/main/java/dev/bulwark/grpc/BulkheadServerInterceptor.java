package dev.bulwark.grpc;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.PartitionedBulkhead;
import dev.bulwark.Policy;
import dev.bulwark.Rejection;
import dev.bulwark.grpc.internal.DeferredServerListener;
import dev.bulwark.internal.util.Stages;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Inbound load shedding for a gRPC server: every call is admitted through a bulkhead before the service sees it, and
 * a call the bulkhead refuses is closed with {@link Status.Code#RESOURCE_EXHAUSTED} and retry pushback metadata.
 *
 * <pre>{@code
 * Bulkhead bulkhead = Bulkhead.builder().name("orders-api").maxConcurrency(64).maxQueue(128)
 *         .maxWait(Duration.ofMillis(200)).build();
 * Server server = ServerBuilder.forPort(8443)
 *         .addService(ServerInterceptors.intercept(ordersService, BulkheadServerInterceptor.of(bulkhead)))
 *         .build();
 * }</pre>
 *
 * <p><b>Choosing the bulkhead.</b> {@link Builder#perMethod(Function)} picks one per method (resolved once per
 * method, on its first call; an empty answer leaves the method unlimited, health checks for example), and
 * {@link Builder#perKey(PartitionedBulkhead, Metadata.Key, String)} picks a partition per value of a request header
 * (per tenant, say).
 *
 * <p><b>Keys.</b> With {@code perKey} the client chooses the key, and each key is a partition whose name embeds it,
 * so a call whose key is longer than {@link Builder#maxKeyLength(int)} (default {@value #DEFAULT_MAX_KEY_LENGTH})
 * or fails {@link Builder#keyValidator(Predicate)} is closed at once with {@link Status.Code#INVALID_ARGUMENT} and
 * the trailer {@value #REJECTION_REASON_HEADER} {@value #INVALID_KEY}, and makes no partition. The description
 * names the header, not the value.
 *
 * <p><b>Admission.</b> A call with a free slot starts at once, on the transport's thread. A call that must wait is a
 * queue entry, not a thread: nothing blocks a transport thread, and the call is started by the thread that frees the
 * slot (which then delivers its first listener events; gRPC's rule that listener methods never run concurrently is
 * kept). Events the transport reports while the call waits ({@code onReady}, {@code onCancel}) are replayed in order.
 *
 * <p><b>Cancellation.</b> A call the client cancels (or whose deadline passes) while queued leaves the queue at once
 * and is never started; the bulkhead reports it as cancelled and nothing is sent.
 *
 * <p><b>Release.</b> An admitted call holds its slot until the transport reports {@code onComplete} or
 * {@code onCancel}; the slot is released exactly once, whichever comes, also when the service throws.
 *
 * <p><b>Refusal.</b> The call is closed with {@code RESOURCE_EXHAUSTED}, the description being the
 * {@link BulkheadRejectedException#getMessage() message} of the refusal (it names the bulkhead, the
 * {@link Rejection.Reason} and the counts), and the trailers {@value #RETRY_PUSHBACK_HEADER} (from
 * {@link Builder#retryPushback(Function)}) and {@value #REJECTION_REASON_HEADER} (the reason in lower case, such as
 * {@code queue_full}). A refusal after waiting ({@code wait_timeout}) is sent from a
 * {@code ForkJoinPool.commonPool()} thread (for an in-process bulkhead, whose timer thread hands it off; other
 * bulkheads document their own threads, e.g. {@code RedisBulkhead} its executor).
 *
 * <p>Immutable and thread-safe; add one instance to a server.
 */
public final class BulkheadServerInterceptor implements ServerInterceptor {

    /** The trailer gRPC clients read as the server's retry pushback, in milliseconds (gRFC A6). */
    public static final String RETRY_PUSHBACK_HEADER = "grpc-retry-pushback-ms";
    /** The trailer naming why the call was refused: {@link Rejection.Reason} in lower case. */
    public static final String REJECTION_REASON_HEADER = "bulwark-rejection-reason";

    /** {@link #RETRY_PUSHBACK_HEADER} as a metadata key. */
    public static final Metadata.Key<String> RETRY_PUSHBACK =
            Metadata.Key.of(RETRY_PUSHBACK_HEADER, Metadata.ASCII_STRING_MARSHALLER);
    /** {@link #REJECTION_REASON_HEADER} as a metadata key. */
    public static final Metadata.Key<String> REJECTION_REASON =
            Metadata.Key.of(REJECTION_REASON_HEADER, Metadata.ASCII_STRING_MARSHALLER);

    /** The longest key {@code perKey} accepts unless {@link Builder#maxKeyLength(int)} says otherwise. */
    public static final int DEFAULT_MAX_KEY_LENGTH = 256;
    /** The {@value #REJECTION_REASON_HEADER} of a call refused for its key, not by a bulkhead. */
    public static final String INVALID_KEY = "invalid_key";

    private static final System.Logger LOGGER = System.getLogger(BulkheadServerInterceptor.class.getName());
    private static final Duration DEFAULT_PUSHBACK_WITHOUT_WAIT = Duration.ofSeconds(1);

    private final BiFunction<MethodDescriptor<?, ?>, Metadata, Optional<Policy>> admission;
    private final Function<? super Rejection, Optional<Duration>> retryPushback;
    private final String description;
    /** Why a call's key is not accepted, or {@code null}; absent ({@code null}) without {@code perKey}. */
    private final Function<Metadata, String> keyProblem;

    private BulkheadServerInterceptor(Builder builder) {
        this.admission = builder.admission;
        this.keyProblem = builder.keyProblem();
        this.retryPushback = builder.retryPushback;
        this.description = builder.description;
    }

    /**
     * Makes an interceptor that admits every call of the intercepted services through one bulkhead, with the default
     * retry pushback.
     *
     * @param bulkhead the bulkhead every call needs a slot in
     * @return a new interceptor
     * @throws NullPointerException when {@code bulkhead} is {@code null}
     */
    public static BulkheadServerInterceptor of(Bulkhead bulkhead) {
        Objects.requireNonNull(bulkhead, "bulkhead");
        return builder().perMethod(method -> Optional.of(bulkhead)).build();
    }

    /**
     * Starts configuring an interceptor. Exactly one of {@link Builder#perMethod} and {@link Builder#perKey} must be
     * set.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The default retry pushback: how long the refused call waited when it waited (a wait timeout, or eviction from a
     * LIFO queue: slots have been busy at least that long), otherwise one second.
     *
     * @param rejection the refusal
     * @return the pushback, never empty
     * @throws NullPointerException when {@code rejection} is {@code null}
     */
    public static Optional<Duration> defaultRetryPushback(Rejection rejection) {
        Duration waited = Objects.requireNonNull(rejection, "rejection").waited();
        return Optional.of(waited.isZero() ? DEFAULT_PUSHBACK_WITHOUT_WAIT : waited);
    }

    /**
     * Admits the call through its bulkhead, or closes it when refused. Never blocks.
     *
     * @throws NullPointerException when an argument is {@code null}
     */
    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(ServerCall<ReqT, RespT> call, Metadata headers,
                                                                 ServerCallHandler<ReqT, RespT> next) {
        Objects.requireNonNull(call, "call");
        Objects.requireNonNull(headers, "headers");
        Objects.requireNonNull(next, "next");
        String problem = keyProblem == null ? null : keyProblem.apply(headers);
        if (problem != null) {
            // Refused before a partition is made: the client chose the key, and each key costs memory.
            Metadata trailers = new Metadata();
            trailers.put(REJECTION_REASON, INVALID_KEY);
            call.close(Status.INVALID_ARGUMENT.withDescription(problem), trailers);
            return new ServerCall.Listener<>() {
            };
        }
        Optional<Policy> policy = admission.apply(call.getMethodDescriptor(), headers);
        if (policy.isEmpty()) {
            return next.startCall(call, headers);
        }
        DeferredServerListener<ReqT> listener = new DeferredServerListener<>(call);
        policy.get().callAsync(() -> listener.start(call, headers, next), listener.signal())
                .whenComplete((ignored, failure) -> {
                    if (failure != null) {
                        listener.abandon();
                        refuse(call, Stages.unwrap(failure));
                    }
                });
        return listener;
    }

    private void refuse(ServerCall<?, ?> call, Throwable failure) {
        if (failure instanceof CancellationException) {
            return; // the client went away while queued: there is nobody to answer
        }
        Metadata trailers = new Metadata();
        Status status;
        if (failure instanceof BulkheadRejectedException) {
            Rejection rejection = ((BulkheadRejectedException) failure).rejection();
            status = Status.RESOURCE_EXHAUSTED.withDescription(failure.getMessage());
            trailers.put(REJECTION_REASON, rejection.reason().name().toLowerCase(Locale.ROOT));
            pushbackMillis(rejection).ifPresent(millis -> trailers.put(RETRY_PUSHBACK, Long.toString(millis)));
        } else {
            status = Status.fromThrowable(failure);
        }
        try {
            call.close(status, trailers);
        } catch (IllegalStateException alreadyClosed) {
            // The transport closed the call first (it was cancelled at the same instant): nothing left to do.
        }
    }

    /** The user's pushback in whole milliseconds; a pushback function that fails must not leave the call open. */
    private Optional<Long> pushbackMillis(Rejection rejection) {
        try {
            return retryPushback.apply(rejection).map(delay -> Math.max(0, delay.toMillis()));
        } catch (RuntimeException failure) {
            LOGGER.log(System.Logger.Level.WARNING, "The retry pushback function threw; refusing without pushback",
                    failure);
            return Optional.empty();
        }
    }

    @Override
    public String toString() {
        return "BulkheadServerInterceptor[" + description + "]";
    }

    /**
     * Configures a {@link BulkheadServerInterceptor}. Not thread-safe: configure on one thread, then
     * {@link #build()}. Each setter checks its argument at once and names it in the exception.
     */
    public static final class Builder {

        private BiFunction<MethodDescriptor<?, ?>, Metadata, Optional<Policy>> admission;
        private String description;
        private Function<? super Rejection, Optional<Duration>> retryPushback =
                BulkheadServerInterceptor::defaultRetryPushback;
        /** The {@code perKey} header and the key of calls without it; {@code null} without {@code perKey}. */
        private Metadata.Key<String> keyHeader;
        private String keyWhenAbsent;
        private int maxKeyLength = DEFAULT_MAX_KEY_LENGTH;
        private Predicate<? super String> keyValidator;

        private Builder() {
        }

        /**
         * Admits each method's calls through the bulkhead {@code bulkheadFor} returns for it. The function is asked
         * once per method, on its first call, and its answer kept; an empty answer leaves the method unlimited.
         *
         * @param bulkheadFor the bulkhead of a method, or empty for none; must not return {@code null}
         * @return this builder
         * @throws NullPointerException when {@code bulkheadFor} is {@code null}
         * @throws IllegalStateException when {@link #perKey} or this was already set
         */
        public Builder perMethod(Function<? super MethodDescriptor<?, ?>, Optional<Bulkhead>> bulkheadFor) {
            Objects.requireNonNull(bulkheadFor, "bulkheadFor");
            requireUnset();
            ConcurrentMap<String, Optional<Policy>> resolved = new ConcurrentHashMap<>();
            admission = (method, headers) -> {
                Optional<Policy> known = resolved.get(method.getFullMethodName());
                if (known != null) {
                    return known;
                }
                return resolved.computeIfAbsent(method.getFullMethodName(), name -> Objects.requireNonNull(
                        bulkheadFor.apply(method), () -> "bulkheadFor returned null for " + name)
                        .map(Policy.class::cast));
            };
            description = "per method";
            return this;
        }

        /**
         * Admits each call through the partition of {@code bulkhead} named by the value of the request header
         * {@code key}; calls without the header share the partition {@code keyWhenAbsent}.
         *
         * @param bulkhead the partitioned bulkhead
         * @param key the request header whose value picks the partition
         * @param keyWhenAbsent the partition key of calls that do not send the header
         * @return this builder
         * @throws NullPointerException when an argument is {@code null}
         * @throws IllegalStateException when {@link #perMethod} or this was already set
         */
        public Builder perKey(PartitionedBulkhead<String> bulkhead, Metadata.Key<String> key, String keyWhenAbsent) {
            Objects.requireNonNull(bulkhead, "bulkhead");
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(keyWhenAbsent, "keyWhenAbsent");
            requireUnset();
            admission = (method, headers) -> {
                String value = headers.get(key);
                return Optional.of(bulkhead.forKey(value == null ? keyWhenAbsent : value));
            };
            description = "per '" + key.name() + "' of " + bulkhead.name();
            keyHeader = key;
            this.keyWhenAbsent = keyWhenAbsent;
            return this;
        }

        /**
         * Sets the longest key {@code perKey} accepts, in characters (default {@value #DEFAULT_MAX_KEY_LENGTH}). A
         * call with a longer value in the key header is closed with {@code INVALID_ARGUMENT} and makes no partition:
         * the partition's name embeds the key, so unbounded keys are unbounded memory.
         *
         * @param maxKeyLength the longest key, at least 1
         * @return this builder
         * @throws IllegalArgumentException when {@code maxKeyLength} is below 1
         */
        public Builder maxKeyLength(int maxKeyLength) {
            if (maxKeyLength < 1) {
                throw new IllegalArgumentException("maxKeyLength must be at least 1 but was " + maxKeyLength);
            }
            this.maxKeyLength = maxKeyLength;
            return this;
        }

        /**
         * Sets a check every {@code perKey} key must also pass, after the length check: a charset, an allow-list
         * of known tenants. A call whose key fails it (or makes it throw) is closed with {@code INVALID_ARGUMENT}
         * and makes no partition. The key of calls without the header ({@code keyWhenAbsent}) is not checked.
         * Called on the transport's thread for every call: it must be quick and must not block.
         *
         * @param keyValidator {@code true} for a key the service accepts
         * @return this builder
         * @throws NullPointerException when {@code keyValidator} is {@code null}
         */
        public Builder keyValidator(Predicate<? super String> keyValidator) {
            this.keyValidator = Objects.requireNonNull(keyValidator, "keyValidator");
            return this;
        }

        /** The key check of {@code perKey}; never repeats the key, which is the client's text. */
        private Function<Metadata, String> keyProblem() {
            if (keyHeader == null) {
                return null;
            }
            Metadata.Key<String> header = keyHeader;
            String absent = keyWhenAbsent;
            int longest = maxKeyLength;
            Predicate<? super String> valid = keyValidator;
            return headers -> {
                String value = headers.get(header);
                if (value == null || value.equals(absent)) {
                    return null;
                }
                if (value.length() > longest) {
                    return "the '" + header.name() + "' header is longer than the " + longest
                            + " characters this service accepts";
                }
                boolean accepted;
                try {
                    accepted = valid == null || valid.test(value);
                } catch (RuntimeException failure) {
                    LOGGER.log(System.Logger.Level.WARNING, "The key validator threw; refusing the key", failure);
                    accepted = false;
                }
                return accepted ? null : "the '" + header.name() + "' header is not a key this service accepts";
            };
        }

        /**
         * Sets the retry pushback sent with a refusal as {@value #RETRY_PUSHBACK_HEADER} (whole milliseconds); an
         * empty answer sends none, and the client falls back to its own backoff. Called on the refusing thread (a
         * common-pool thread for an in-process bulkhead's wait timeout; a {@code RedisBulkhead}'s executor), so it
         * must be quick. Default: {@link BulkheadServerInterceptor#defaultRetryPushback(Rejection)}.
         *
         * @param pushback the pushback for a refusal; must not return {@code null}
         * @return this builder
         * @throws NullPointerException when {@code pushback} is {@code null}
         */
        public Builder retryPushback(Function<? super Rejection, Optional<Duration>> pushback) {
            this.retryPushback = Objects.requireNonNull(pushback, "pushback");
            return this;
        }

        private void requireUnset() {
            if (admission != null) {
                throw new IllegalStateException("the bulkhead is already chosen " + description
                        + "; set only one of perMethod and perKey");
            }
        }

        /**
         * Builds the interceptor.
         *
         * @return a new interceptor
         * @throws IllegalStateException when neither {@link #perMethod} nor {@link #perKey} was set, or
         *     {@link #keyValidator} or {@link #maxKeyLength} was set without {@link #perKey}
         */
        public BulkheadServerInterceptor build() {
            if (admission == null) {
                throw new IllegalStateException("no bulkhead chosen: set perMethod or perKey");
            }
            if (keyHeader == null && (keyValidator != null || maxKeyLength != DEFAULT_MAX_KEY_LENGTH)) {
                throw new IllegalStateException("keyValidator and maxKeyLength apply only with perKey");
            }
            return new BulkheadServerInterceptor(this);
        }
    }
}
