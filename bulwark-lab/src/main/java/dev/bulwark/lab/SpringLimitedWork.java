package dev.bulwark.lab;

import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.context.annotation.Scope;
import org.springframework.resilience.annotation.ConcurrencyLimit;
import org.springframework.stereotype.Component;

/**
 * A dependency's work ({@link DependencyWork}) behind Spring Framework 7's own {@code @ConcurrencyLimit}, served by
 * Spring's {@code ConcurrencyLimitBeanPostProcessor} (enabled by {@code @EnableResilientMethods} on
 * {@link LabApplication}), as a user of the annotation would write it. The limit is {@code ${lab.spring-limit}},
 * which Spring resolves at a proxy's first call: the bean is a prototype, so {@link DependencyGuard} takes a new
 * proxy, with the run's limit, for each run.
 *
 * <p>Thread-safe: Spring's interceptor counts the calls in flight per proxy.
 */
@Component
@Scope(ConfigurableBeanFactory.SCOPE_PROTOTYPE)
class SpringLimitedWork {

    /** The property that holds the limit of the next proxy. */
    static final String LIMIT_PROPERTY = "lab.spring-limit";

    /**
     * The work under the annotation's default policy, {@code BLOCK}: beyond the limit a call waits, without bound.
     *
     * @param work the dependency's work
     * @return the work's result
     * @throws Exception the work's own
     */
    @ConcurrencyLimit(limitString = "${" + LIMIT_PROPERTY + "}")
    public long serveBlocking(DependencyWork work) throws Exception {
        return work.serve();
    }

    /**
     * The work under {@code policy = REJECT}: beyond the limit Spring throws
     * {@link org.springframework.resilience.InvocationRejectedException} at once.
     *
     * @param work the dependency's work
     * @return the work's result
     * @throws Exception the work's own
     */
    @ConcurrencyLimit(limitString = "${" + LIMIT_PROPERTY + "}", policy = ConcurrencyLimit.ThrottlePolicy.REJECT)
    public long serveRejecting(DependencyWork work) throws Exception {
        return work.serve();
    }
}
