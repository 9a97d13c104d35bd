package dev.bulwark.internal;

import dev.bulwark.Policy;
import java.util.List;

/**
 * The one way a policy takes part in a {@link dev.bulwark.Pipeline}: it appends the {@link ChainStep}s it runs as
 * to the pipeline's chain, outermost first. Each of Bulwark's policies is a source: a retry or a timeout appends its
 * one step, an in-process bulkhead (itself a step) appends itself, a pipeline appends all of its steps, so that
 * nested pipelines flatten into one chain. Any other policy is made a source by {@link #of(Policy)}, which wraps
 * it in a {@link ForeignPolicyStep}.
 *
 * <p>Sources are immutable and thread-safe; appending allocates nothing per call (it happens once, when a pipeline
 * is built).
 */
public interface StepSource {

    /**
     * Appends this policy's steps, outermost first. Called once per pipeline that contains the policy.
     *
     * @param steps the chain being assembled
     */
    void appendStepsTo(List<ChainStep> steps);

    /**
     * Returns how a policy takes part in a pipeline.
     *
     * @param policy any policy
     * @return the policy itself when it is one of Bulwark's, otherwise a step that runs the rest of the chain as its
     *     operation
     */
    static StepSource of(Policy policy) {
        return policy instanceof StepSource ? (StepSource) policy : new ForeignPolicyStep(policy);
    }
}
