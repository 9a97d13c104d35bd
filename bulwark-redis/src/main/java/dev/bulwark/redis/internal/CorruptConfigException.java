package dev.bulwark.redis.internal;

import io.lettuce.core.RedisCommandExecutionException;

/**
 * Redis holds a cluster-wide limit that is not a whole number in range (the scripts answered with a
 * {@code BULWARK_CONFIG} error naming the field, see {@link LuaScripts}). Unlike an unavailable Redis this is never
 * a reason to run without a permit ({@code FAIL_OPEN}): the config is wrong on every instance until someone fixes
 * it, so every call is refused with the cause naming the field, and {@code build()} fails with it. The field is
 * repaired by {@code changeMaxConcurrency} (and the other setters) or by deleting the key. Immutable.
 */
final class CorruptConfigException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    /** The prefix of the scripts' error reply. */
    static final String PREFIX = "BULWARK_CONFIG ";

    private CorruptConfigException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * The exception for a script's error reply, or {@code null} when {@code failure} is not a config error.
     *
     * @param bulkheadName the bulkhead's name, for the message
     * @param failure what the script failed with
     */
    static CorruptConfigException of(String bulkheadName, Throwable failure) {
        if (!(failure instanceof RedisCommandExecutionException) || failure.getMessage() == null) {
            return null;
        }
        String reply = failure.getMessage();
        int at = reply.indexOf(PREFIX);
        if (at < 0) {
            return null;
        }
        // Redis appends " script: <sha>, on @user_script:<line>." to an error raised inside a script.
        int end = reply.indexOf(" script: ", at);
        String detail = reply.substring(at + PREFIX.length(), end < 0 ? reply.length() : end);
        return new CorruptConfigException("Bulkhead '" + bulkheadName + "': the cluster-wide config in Redis is "
                + "corrupt: " + detail + "; nothing is admitted until it is fixed (changeMaxConcurrency, "
                + "changeMaxQueue or changeMaxWait, or delete the key to have it initialized again)", failure);
    }

    /** Whether {@code failure} is (or is caused by) a corrupt config. */
    static boolean isCause(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof CorruptConfigException) {
                return true;
            }
        }
        return false;
    }
}
