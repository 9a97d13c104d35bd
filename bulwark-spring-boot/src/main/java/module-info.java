/**
 * Spring Boot auto-configuration for Bulwark.
 *
 * <p>{@code dev.bulwark.spring} (annotations, properties, policies, auto-configurations, endpoint) is exported;
 * {@code dev.bulwark.spring.internal} is implementation, opened to Spring only for reflection.
 */
module dev.bulwark.spring {
    requires transitive dev.bulwark;
    requires transitive spring.beans;
    requires transitive spring.boot;
    requires transitive spring.boot.autoconfigure;
    requires transitive spring.context;
    requires spring.aop;
    requires spring.core;

    // Optional integrations: each switches on when its library is present at run time.
    requires static spring.boot.actuator;
    requires static dev.bulwark.micrometer;
    requires static micrometer.core;
    requires static micrometer.observation;
    requires static dev.bulwark.reactor;
    requires static reactor.core;
    // Inbound load shedding: the servlet filter and the WebFilter.
    requires static jakarta.servlet;
    requires static spring.web;
    requires static spring.webflux;

    exports dev.bulwark.spring;

    opens dev.bulwark.spring to spring.core, spring.beans, spring.context;
    opens dev.bulwark.spring.internal to spring.core, spring.beans, spring.context, spring.aop;
}
