package dev.bulwark.internal;

/** Rethrowing an operation's own exception unchanged. */
public final class Throwables {

    private Throwables() {
    }

    /**
     * Throws {@code failure} as it is. Used where a policy caught what the operation threw (declared as
     * {@code X}) and decided to let it through: the instance and its checked type are preserved because it came
     * from that very operation.
     *
     * @param failure what the operation threw
     * @param <X> the operation's declared exception type
     * @return never returns; declared so callers can write {@code throw Throwables.rethrow(e)}
     * @throws X always
     */
    @SuppressWarnings("unchecked")
    public static <X extends Throwable> RuntimeException rethrow(Throwable failure) throws X {
        throw (X) failure;
    }
}
