package dev.bulwark.spring.internal;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadConfig;
import dev.bulwark.Bulkheads;
import dev.bulwark.spring.BulwarkPolicies;
import dev.bulwark.spring.BulwarkProperties;
import java.lang.annotation.Annotation;
import org.springframework.aop.Advisor;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.util.StringUtils;

/**
 * Serves Spring Framework 7's {@code @ConcurrencyLimit} with Bulwark bulkheads, in place of Spring's
 * {@code ConcurrencyLimitBeanPostProcessor} (which {@link SpringProcessorRemoval} removes). It advises the same
 * methods the same way (the same pointcut, before the bean's existing advisors, at Spring's order), but gives each
 * proxied bean instance an interceptor of its own whose throttles are made, checked and registered when the bean is
 * proxied:
 * <ul>
 *   <li>the limit is the annotation's ({@code value}, {@code limit}, or {@code limitString} with placeholders and
 *       SpEL resolved as Spring resolves them); a limit below -1 fails the bean's creation (Spring fails the first
 *       call);</li>
 *   <li>{@code BLOCK} waits in an unbounded FIFO queue with no maximum wait, unless
 *       {@code bulwark.bulkheads[<name>].max-queue} or {@code max-wait} bound it; {@code REJECT} has no queue;</li>
 *   <li>the bulkhead is named {@code <bean name>.<method name>} (or {@code <bean name>} for an annotation on the
 *       class) and, for a singleton bean, registered in the {@link Bulkheads} registry: metrics, the actuator view
 *       and the drain on shutdown see it.</li>
 * </ul>
 * Thread-safe, like every bean post-processor.
 */
public final class ConcurrencyLimitProcessor extends InstanceAdvisingProcessor {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the post-processor.
     *
     * @param policies the policies (their registry receives the bulkheads), looked up when a bean is proxied
     * @param properties the settings under {@code bulwark.bulkheads[<name>]}
     */
    public ConcurrencyLimitProcessor(ObjectProvider<BulwarkPolicies> policies,
                                     ObjectProvider<BulwarkProperties> properties) {
        // Spring's own order for its post-processor: after every common post-processor but @EnableAsync's.
        super(SpringResilience.concurrencyLimitType(), Ordered.LOWEST_PRECEDENCE - 1, policies, properties);
    }

    @Override
    Advisor advisorFor(Class<?> beanClass, String beanName) {
        return advise(beanClass, beanName, "ConcurrencyLimit", "bulkhead", SpringResilience::concurrencyLimit,
                this::gate, ConcurrencyLimitInterceptor::new);
    }

    private ConcurrencyLimitGate gate(String name, String identifier, MergedAnnotation<Annotation> annotation,
                                      String where, boolean shared) {
        int limit = limit(annotation, where);
        boolean reject = "REJECT".equals(((Enum<?>) annotation.getValue("policy").orElseThrow()).name());
        BulwarkProperties declared = properties.getObject();
        BulwarkProperties.BulkheadSettings settings = declared.bulkheads().get(name);
        String key = "bulwark.bulkheads[" + name + "]";
        if (limit <= 0) {
            if (settings != null) {
                throw new IllegalStateException(key + " is declared but @ConcurrencyLimit on " + where + " has limit "
                        + limit + ", which Bulwark serves without a bulkhead: remove the declaration");
            }
            return new ConcurrencyLimitGate(identifier, limit, reject, null);
        }
        if (settings != null && settings.maxConcurrency() != null) {
            throw new IllegalStateException(key + ".max-concurrency must not be set: the limit of @ConcurrencyLimit on "
                    + where + " comes from the annotation (" + limit + ")");
        }
        if (reject && settings != null && (settings.maxQueue() != null || settings.maxWait() != null)) {
            throw new IllegalStateException(key + ".max-queue and max-wait must not be set: @ConcurrencyLimit on "
                    + where + " has policy REJECT, which never queues (use BLOCK for a bounded queue)");
        }
        Bulkhead.Builder builder = Bulkhead.builder().name(name).maxConcurrency(limit);
        if (reject) {
            builder.maxQueue(0);
        } else {
            builder.maxQueue(settings != null && settings.maxQueue() != null ? settings.maxQueue() : Integer.MAX_VALUE);
            if (settings != null && settings.maxWait() != null) {
                builder.maxWait(settings.maxWait());
            }
        }
        BulkheadConfig config;
        try {
            config = builder.config();
        } catch (IllegalArgumentException refused) {
            throw new IllegalStateException(key + ": " + refused.getMessage(), refused);
        }
        return new ConcurrencyLimitGate(identifier, limit, reject, shared ? register(config, declared)
                : Bulkhead.of(config));
    }

    /**
     * Registers a singleton bean's bulkhead, replacing the one {@link BulwarkPolicies} made from its declaration
     * (declared settings are read here; the policies made it with the defaults' limit).
     */
    private Bulkhead register(BulkheadConfig config, BulwarkProperties declared) {
        Bulkheads registry = policies.getObject().bulkheads();
        if (registry.find(config.name()).isPresent()) {
            if (!declared.bulkheads().containsKey(config.name())) {
                throw new IllegalStateException("a bulkhead named '" + config.name() + "' already exists: the "
                        + "bulkhead of @ConcurrencyLimit on that bean (method) needs the name");
            }
            registry.remove(config.name());
        }
        return registry.bulkhead(config);
    }

    private int limit(MergedAnnotation<Annotation> annotation, String where) {
        // Spring's parsing: a non-blank limitString, once resolved, wins over limit (alias value).
        int limit = annotation.getInt("limit");
        String text = annotation.getString("limitString");
        if (StringUtils.hasText(text)) {
            text = resolved(text);
            if (StringUtils.hasText(text)) {
                try {
                    limit = Integer.parseInt(text);
                } catch (NumberFormatException notANumber) {
                    throw new IllegalStateException("@ConcurrencyLimit on " + where + ": limitString must be an "
                            + "integer but resolved to '" + text + "'", notANumber);
                }
            }
        }
        if (limit < ConcurrencyLimitGate.UNBOUNDED) {
            throw new IllegalStateException("@ConcurrencyLimit on " + where + " must be configured with a valid limit "
                    + "(-1 for unbounded, 0 to refuse every call, or positive) but has " + limit);
        }
        return limit;
    }
}
