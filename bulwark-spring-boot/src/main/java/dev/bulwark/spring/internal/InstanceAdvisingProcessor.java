package dev.bulwark.spring.internal;

import org.springframework.aop.Advisor;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.SmartClassLoader;

/**
 * The proxying shared by Bulwark's post-processors for Spring Framework 7's resilience annotations: as Spring's
 * {@code AbstractAdvisingBeanPostProcessor}, but each bean instance gets an advisor of its own ({@link #advisorFor}),
 * whose policies are made, checked and registered when the bean is proxied. The eligibility of a class is decided
 * by the {@link #advisor} the subclass sets (and cached per class by Spring). Thread-safe, like every bean
 * post-processor.
 */
abstract class InstanceAdvisingProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {

    private static final long serialVersionUID = 1L;

    private transient ConfigurableListableBeanFactory beanFactory;

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
