package dev.bulwark.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.spring.FallbackMethodListener;
import java.io.IOException;
import java.util.concurrent.CancellationException;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.StaticListableBeanFactory;

/**
 * Which failures an annotation's fallback method replaces: like a programmatic {@code Fallback} without
 * {@code handle}, a fallback without a failure parameter lets an {@code InterruptedException} pass, so the caller
 * still learns of the interrupt; a failure parameter's type selects explicitly, interrupts included.
 */
class FallbackMethodInterruptTest {

    static class Service {
        public String load() throws InterruptedException {
            return "loaded";
        }

        String cached() {
            return "cached";
        }

        public String save() throws InterruptedException {
            return "saved";
        }

        String notSaved(Exception failure) {
            return "not saved";
        }
    }

    private static FallbackMethod fallback(String annotated, String name) throws NoSuchMethodException {
        return FallbackMethod.resolve(Service.class, Service.class.getMethod(annotated), name, "policy",
                new StaticListableBeanFactory().getBeanProvider(FallbackMethodListener.class));
    }

    @Test
    void withoutAFailureParameterAnInterruptPassesThrough() throws Exception {
        FallbackMethod cached = fallback("load", "cached");

        assertThat(cached.handles(new InterruptedException())).isFalse();
        assertThat(cached.handles(new CancellationException())).isFalse();
        assertThat(cached.handles(new IOException())).isTrue();
    }

    @Test
    void aFailureParameterOfTypeExceptionSelectsInterruptsToo() throws Exception {
        assertThat(fallback("save", "notSaved").handles(new InterruptedException())).isTrue();
    }
}
