package dev.bulwark.benchmarks.conformance;

import java.util.Objects;

/**
 * The outcome of one {@link Check} on one subject. Immutable.
 *
 * @param passed whether the subject has the property
 * @param detail what was observed: for a failure, what went wrong, in terms a reader of the table understands
 */
public record Verdict(boolean passed, String detail) {

    /**
     * Checks the components.
     *
     * @throws NullPointerException when {@code detail} is {@code null}
     */
    public Verdict {
        Objects.requireNonNull(detail, "detail");
    }

    /**
     * A passed check.
     *
     * @return the verdict
     */
    public static Verdict pass() {
        return new Verdict(true, "ok");
    }

    /**
     * A failed check.
     *
     * @param detail what went wrong
     * @return the verdict
     */
    public static Verdict fail(String detail) {
        return new Verdict(false, detail);
    }
}
