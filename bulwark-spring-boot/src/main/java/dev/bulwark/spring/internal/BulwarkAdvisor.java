package dev.bulwark.spring.internal;

import java.lang.reflect.Method;
import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.factory.BeanClassLoaderAware;

/**
 * Spring AOP's advisor for {@code @Bulkhead}, {@code @Retry} and {@code @Timeout}: matches the methods that carry
 * them (or whose class does) and applies {@link BulwarkMethodInterceptor}. Needs spring-aop only, not AspectJ.
 */
public final class BulwarkAdvisor extends AbstractPointcutAdvisor implements BeanClassLoaderAware {

    private static final long serialVersionUID = 1L;

    private final transient BulwarkMethodInterceptor interceptor;
    private final transient Pointcut pointcut;

    /**
     * Creates the advisor.
     *
     * @param interceptor the interceptor applied to matching methods
     */
    public BulwarkAdvisor(BulwarkMethodInterceptor interceptor) {
        this.interceptor = interceptor;
        this.pointcut = new StaticMethodMatcherPointcut() {
            @Override
            public boolean matches(Method method, Class<?> targetClass) {
                return interceptor.matches(method, targetClass);
            }
        };
    }

    /** Passes the application's bean class loader on: bulwark-reactor is looked for there too. */
    @Override
    public void setBeanClassLoader(ClassLoader classLoader) {
        interceptor.beanClassLoader(classLoader);
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return interceptor;
    }
}
