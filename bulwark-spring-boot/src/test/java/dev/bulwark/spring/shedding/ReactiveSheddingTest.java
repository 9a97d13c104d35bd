package dev.bulwark.spring.shedding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.spring.internal.ReactiveSheddingFilter;

/** The load-shedding contract on WebFlux (Reactor Netty). */
class ReactiveSheddingTest extends SheddingContract {

    @Override
    RunningApp start(String... properties) {
        RunningApp app = RunningApp.reactive(properties);
        assertThat(app.bean(ReactiveSheddingFilter.class)).isNotNull();
        return app;
    }

    @Override
    String disconnectAsyncTimeout() {
        return "1h"; // ignored by WebFlux: the cancel of the exchange ends the wait at once
    }
}
