package dev.bulwark.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Audit s30 finding 9: overloads of a fallback method each take the failures of their failure parameter's type, the
 * most specific type winning, and the overload without a failure parameter takes the rest, whatever order reflection
 * lists them in.
 */
class OverloadedFallbackTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BulwarkAutoConfiguration.class))
            .withUserConfiguration(OverloadsConfiguration.class);

    @Test
    void eachFailureGoesToTheOverloadOfItsMostSpecificTypeAndTheRestToTheOneWithoutAFailure() {
        runner.run(context -> {
            Overloaded bean = context.getBean(Overloaded.class);
            assertThat(bean.call(new IOException("io"))).isEqualTo("IOException io");
            assertThat(bean.call(new IllegalStateException("state"))).as("more specific than RuntimeException")
                    .isEqualTo("IllegalStateException state");
            assertThat(bean.call(new IllegalArgumentException("arg"))).as("a subclass of RuntimeException only")
                    .isEqualTo("RuntimeException arg");
            assertThat(bean.call(new TimeoutException("late"))).as("none of the overloads' types")
                    .isEqualTo("without failure");
        });
    }

    @Test
    void withoutAnOverloadWithoutAFailureAFailureOfNoOverloadsTypePropagates() {
        runner.run(context -> {
            OverloadedOnly bean = context.getBean(OverloadedOnly.class);
            assertThat(bean.call(new IOException("io"))).isEqualTo("IOException io");
            assertThat(bean.call(new IllegalStateException("state"))).isEqualTo("IllegalStateException state");
            assertThatThrownBy(() -> bean.call(new TimeoutException("late"))).isInstanceOf(TimeoutException.class)
                    .hasMessage("late");
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class OverloadsConfiguration {
        @Bean
        Overloaded overloaded() {
            return new Overloaded();
        }

        @Bean
        OverloadedOnly overloadedOnly() {
            return new OverloadedOnly();
        }
    }

    /** Throws what it is given; four overloads of its fallback method. */
    public static class Overloaded {
        @dev.bulwark.spring.Bulkhead(value = "b", fallbackMethod = "ov")
        public String call(Exception failure) throws Exception {
            throw failure;
        }

        String ov(Exception given, IllegalStateException failure) {
            return "IllegalStateException " + failure.getMessage();
        }

        String ov(Exception given, IOException failure) {
            return "IOException " + failure.getMessage();
        }

        String ov(Exception given, RuntimeException failure) {
            return "RuntimeException " + failure.getMessage();
        }

        String ov(Exception given) {
            return "without failure";
        }
    }

    /** Throws what it is given; two overloads of its fallback method, both with a failure parameter. */
    public static class OverloadedOnly {
        @dev.bulwark.spring.Bulkhead(value = "b", fallbackMethod = "ov")
        public String call(Exception failure) throws Exception {
            throw failure;
        }

        String ov(Exception given, IllegalStateException failure) {
            return "IllegalStateException " + failure.getMessage();
        }

        String ov(Exception given, IOException failure) {
            return "IOException " + failure.getMessage();
        }
    }
}
