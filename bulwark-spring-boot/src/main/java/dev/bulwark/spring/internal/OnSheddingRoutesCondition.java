package dev.bulwark.spring.internal;

import java.util.List;
import java.util.Map;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/** Matches when at least one {@code bulwark.shedding.routes[n]} entry is configured. */
public final class OnSheddingRoutesCondition extends SpringBootCondition {

    /** Creates the condition; Spring calls it. */
    public OnSheddingRoutesCondition() {
    }

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        boolean declared = Binder.get(context.getEnvironment())
                .bind("bulwark.shedding.routes", Bindable.listOf(Map.class))
                .map(List::size).orElse(0) > 0;
        return declared ? ConditionOutcome.match("bulwark.shedding.routes are declared")
                : ConditionOutcome.noMatch("no bulwark.shedding.routes are declared");
    }
}
