package dev.bulwark.spring.internal;

import dev.bulwark.spring.BulwarkPolicies;
import dev.bulwark.spring.BulwarkProperties;
import java.lang.annotation.Annotation;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import org.aopalliance.intercept.MethodInterceptor;
import org.springframework.aop.Advisor;
import org.springframework.aop.Pointcut;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.ComposablePointcut;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.EmbeddedValueResolverAware;
import org.springframework.core.SmartClassLoader;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringUtils;
import org.springframework.util.StringValueResolver;

/**
 * The proxying shared by Bulwark's post-processors for Spring Framework 7's resilience annotations: as Spring's
 * {@code AbstractAdvisingBeanPostProcessor}, but each bean instance gets an advisor of its own ({@link #advisorFor}),
 * whose policies are made, checked and registered when the bean is proxied ({@link #advise}). A class is eligible
 * when Spring's pointcut for the annotation matches it (decided once per class by Spring). It holds what both make
 * their policies from: the policies' registry, the {@code bulwark.*} declarations, and the resolver of the
 * annotations' {@code *String} attributes (placeholders and SpEL, the one Spring's post-processors use). Thread-safe,
 * like every bean post-processor.
 */
abstract class InstanceAdvisingProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor
        implements EmbeddedValueResolverAware {

    private static final long serialVersionUID = 1L;

    /** The policies, looked up when a bean is proxied: their registries receive the singleton beans' policies. */
    final transient ObjectProvider<BulwarkPolicies> policies;
    /** The declarations under {@code bulwark.*}. */
    final transient ObjectProvider<BulwarkProperties> properties;
    private transient ConfigurableListableBeanFactory beanFactory;
    private final transient Pointcut pointcut;
    private transient StringValueResolver resolver;

    /**
     * Advises the methods Spring's post-processor for {@code annotation} advises, the same way: its pointcut exactly
     * (the annotation on the class, or inherited, or on the method, or an overridden one), before the bean's
     * existing advisors, at {@code order}. No {@code proxyTargetClass} of its own: on Spring 7, setBeanFactory gives
     * it the application's default proxy configuration, as Spring's post-processors get.
     *
     * @param annotation the annotation served
     * @param order Spring's order for its post-processor of that annotation
     * @param policies the policies, looked up when a bean is proxied
     * @param properties the {@code bulwark.*} declarations
     */
    InstanceAdvisingProcessor(Class<? extends Annotation> annotation, int order,
                              ObjectProvider<BulwarkPolicies> policies, ObjectProvider<BulwarkProperties> properties) {
        this.policies = policies;
        this.properties = properties;
        this.pointcut = new ComposablePointcut(new AnnotationMatchingPointcut(annotation, true))
                .union(new AnnotationMatchingPointcut(null, annotation, true));
        // Decides which beans are eligible (cached per class); each bean gets an advisor of its own (advise).
        this.advisor = new DefaultPointcutAdvisor(pointcut, (MethodInterceptor) invocation -> invocation.proceed());
        setBeforeExistingAdvisors(true);
        setOrder(order);
    }

    /** Takes the resolver of the annotations' {@code *String} attributes, the one Spring's post-processors use. */
    @Override
    public void setEmbeddedValueResolver(StringValueResolver resolver) {
        this.resolver = resolver;
    }

    /**
     * Resolves an annotation's {@code *String} attribute as Spring does: placeholders and SpEL, when it has text and
     * a resolver was given.
     *
     * @param text the attribute's text
     * @return the resolved text, or {@code text} itself
     */
    final String resolved(String text) {
        if (StringUtils.hasText(text) && resolver != null) {
            return resolver.resolveStringValue(text);
        }
        return text;
    }

    /**
     * What one annotation becomes for one bean instance: a throttle, a retry plan.
     *
     * @param <P> what is made
     */
    @FunctionalInterface
    interface PolicyMaker<P> {
        /**
         * @param name the policy's name: {@code <bean>.<method>}, or {@code <bean>} for the class's annotation
         * @param identifier Spring's name of the annotated element in its messages (qualified method, or class name)
         * @param annotation the annotation
         * @param where the annotated element, for error messages
         * @param shared whether the bean is a singleton (its policies are registered)
         */
        P make(String name, String identifier, MergedAnnotation<Annotation> annotation, String where, boolean shared);
    }

    /**
     * Builds the interceptor of one bean instance.
     *
     * @param <P> the policies it applies
     */
    @FunctionalInterface
    interface InterceptorMaker<P> {
        MethodInterceptor make(Class<?> targetClass, Map<Method, P> byMethod, P onClass);
    }

    /**
     * The advisor of one bean instance: a policy for each annotated method and one for the annotation on the class,
     * under names that must be unique per bean (so two annotated overloads fail the bean's creation).
     *
     * @param beanClass the bean's class (a CGLIB subclass included)
     * @param beanName the bean's name
     * @param annotationName the annotation's simple name, for error messages
     * @param policyKind what a policy is called in error messages ({@code bulkhead}, {@code retry})
     * @param find the annotation on an element (not present when absent)
     * @param policy makes a policy of an annotation
     * @param interceptor makes the bean's interceptor
     * @param <P> the policy type
     * @return the advisor, with the eligibility pointcut
     */
    final <P> Advisor advise(Class<?> beanClass, String beanName, String annotationName, String policyKind,
                             Function<AnnotatedElement, MergedAnnotation<Annotation>> find, PolicyMaker<P> policy,
                             InterceptorMaker<P> interceptor) {
        Class<?> targetClass = ClassUtils.getUserClass(beanClass);
        boolean shared = isSingleton(beanName);
        Map<Method, P> byMethod = new HashMap<>();
        Map<String, Method> byName = new HashMap<>();
        for (Method method : ReflectionUtils.getUniqueDeclaredMethods(targetClass,
                ReflectionUtils.USER_DECLARED_METHODS)) {
            MergedAnnotation<Annotation> annotation = find.apply(method);
            if (!annotation.isPresent()) {
                continue;
            }
            Method other = byName.putIfAbsent(method.getName(), method);
            if (other != null) {
                throw new IllegalStateException("@" + annotationName + " on " + other + " and on " + method
                        + ": Bulwark names a method's " + policyKind + " " + beanName + "." + method.getName()
                        + ", so that only one method of that name may carry its own @" + annotationName);
            }
            byMethod.put(method, policy.make(beanName + "." + method.getName(),
                    ClassUtils.getQualifiedMethodName(method), annotation, method.toString(), shared));
        }
        MergedAnnotation<Annotation> onClass = find.apply(targetClass);
        P classPolicy = onClass.isPresent()
                ? policy.make(beanName, targetClass.getName(), onClass, targetClass.toString(), shared) : null;
        return new DefaultPointcutAdvisor(pointcut, interceptor.make(targetClass, byMethod, classPolicy));
    }

    /** Takes the bean factory, which tells singleton beans (whose policies are registered) from the others. */
    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        super.setBeanFactory(beanFactory);
        this.beanFactory = beanFactory instanceof ConfigurableListableBeanFactory
                ? (ConfigurableListableBeanFactory) beanFactory : null;
    }

    /** The bean factory, or {@code null} outside a listable one. */
    final ConfigurableListableBeanFactory beanFactory() {
        return beanFactory;
    }

    /**
     * The advisor of one bean instance.
     *
     * @param beanClass the bean's class (a CGLIB subclass included)
     * @param beanName the bean's name
     * @return its advisor, with the eligibility advisor's pointcut
     */
    abstract Advisor advisorFor(Class<?> beanClass, String beanName);

    /** As Spring's {@code AbstractAdvisingBeanPostProcessor}, but with an advisor made for this bean instance. */
    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
        if (bean instanceof AopInfrastructureBean) {
            return bean;
        }
        if (bean instanceof Advised) {
            Advised advised = (Advised) bean;
            Class<?> targetClass = AopUtils.getTargetClass(bean);
            if (!advised.isFrozen() && isEligible(targetClass)) {
                advised.addAdvisor(0, advisorFor(targetClass, beanName));
                return bean;
            }
        }
        if (!isEligible(bean, beanName)) {
            return bean;
        }
        ProxyFactory proxyFactory = prepareProxyFactory(bean, beanName);
        if (!proxyFactory.isProxyTargetClass() && proxyFactory.getProxiedInterfaces().length == 0) {
            evaluateProxyInterfaces(bean.getClass(), proxyFactory);
        }
        proxyFactory.addAdvisor(advisorFor(bean.getClass(), beanName));
        customizeProxyFactory(proxyFactory);
        proxyFactory.setFrozen(isFrozen());
        proxyFactory.setPreFiltered(true);
        ClassLoader classLoader = getProxyClassLoader();
        if (classLoader instanceof SmartClassLoader && classLoader != bean.getClass().getClassLoader()) {
            classLoader = ((SmartClassLoader) classLoader).getOriginalClassLoader();
        }
        return proxyFactory.getProxy(classLoader);
    }

    /** Whether the bean of that name is a singleton, whose policies go in the registries. */
    final boolean isSingleton(String beanName) {
        try {
            return beanFactory != null && beanFactory.containsBean(beanName) && beanFactory.isSingleton(beanName);
        } catch (BeansException notAName) {
            return false;
        }
    }
}
