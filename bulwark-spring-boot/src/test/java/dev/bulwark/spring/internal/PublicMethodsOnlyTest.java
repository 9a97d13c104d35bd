package dev.bulwark.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.StaticListableBeanFactory;

/**
 * The annotations apply to public methods only, and one on a non-public method fails whichever method of its bean
 * Spring asks about first: its proxy creation stops at the first method that matches, which may be a public one.
 */
class PublicMethodsOnlyTest {

    private final StaticListableBeanFactory beans = new StaticListableBeanFactory();
    private final BulwarkMethodInterceptor interceptor = new BulwarkMethodInterceptor(
            beans.getBeanProvider(dev.bulwark.spring.BulwarkPolicies.class),
            beans.getBeanProvider(dev.bulwark.spring.FallbackMethodListener.class));

    @Test
    void aBeanWithAnAnnotatedNonPublicMethodFailsEvenWhenAskedAboutAPublicOneFirst() throws Exception {
        assertThatThrownBy(() -> interceptor.matches(Mixed.class.getMethod("first"), Mixed.class))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("@Bulkhead on").hasMessageContaining("Mixed.hidden()")
                .hasMessageContaining("public methods only");
    }

    @Test
    void aClassAnnotationPassesOverNonPublicMethods() throws Exception {
        assertThat(interceptor.matches(ClassLevel.class.getMethod("open"), ClassLevel.class)).isTrue();
        assertThat(interceptor.matches(ClassLevel.class.getDeclaredMethod("internal"), ClassLevel.class)).isFalse();
    }

    /** One public and one package-visible annotated method. */
    public static class Mixed {
        @dev.bulwark.spring.Bulkhead("db")
        public String first() {
            return "first";
        }

        @dev.bulwark.spring.Bulkhead("db")
        String hidden() {
            return "hidden";
        }
    }

    /** Annotated as a class: its public method runs under the bulkhead, the other does not. */
    @dev.bulwark.spring.Bulkhead("db")
    public static class ClassLevel {
        public String open() {
            return "open";
        }

        String internal() {
            return "internal";
        }
    }
}
