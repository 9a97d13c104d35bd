package dev.bulwark.internal;

import java.util.List;
import java.util.function.Predicate;

/**
 * Whether a failure is one a policy handles, by the types and predicates its builder listed: the one test that
 * {@link dev.bulwark.Retry} (what to retry) and {@link dev.bulwark.Fallback} (what to replace) share. Each policy
 * keeps its own rule for the case where nothing was listed and for cancellations. Stateless; a predicate may run
 * on any caller's thread.
 */
public final class HandledFailures {

    private HandledFailures() {
    }

    /**
     * Tells whether {@code failure} is an instance of one of {@code types} or matches one of {@code predicates}. A
     * predicate that throws anything, an {@link Error} included, counts as not matching; its failure is logged at
     * WARNING. Never throws: a throw here would replace the operation's own failure on a synchronous call and leave
     * an asynchronous call's future incomplete for ever.
     *
     * @param failure the failure to test
     * @param types failure types, tested first
     * @param predicates predicates, tested in order
     * @param logger where a throwing predicate is reported
     * @param owner how the log names the predicate's policy, for example {@code " of retry 'db'"}, or empty
     * @return whether it matches
     */
    public static boolean matches(Throwable failure, List<Class<? extends Throwable>> types,
                                  List<Predicate<? super Throwable>> predicates, System.Logger logger, String owner) {
        for (Class<? extends Throwable> type : types) {
            if (type.isInstance(failure)) {
                return true;
            }
        }
        for (Predicate<? super Throwable> predicate : predicates) {
            try {
                if (predicate.test(failure)) {
                    return true;
                }
            } catch (Throwable predicateFailure) {
                logger.log(System.Logger.Level.WARNING, "A handleIf predicate" + owner
                        + " threw; the failure is treated as not handled", predicateFailure);
            }
        }
        return false;
    }
}
