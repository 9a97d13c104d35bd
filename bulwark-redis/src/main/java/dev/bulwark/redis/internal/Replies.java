package dev.bulwark.redis.internal;

import java.util.List;

/** Reads the elements of a Lua script's array reply (integers arrive as {@code Long}, strings as {@code String}). */
final class Replies {

    private Replies() {
    }

    static long longAt(List<Object> reply, int index) {
        // A short reply is a script that answered something else than this version expects, not a lost connection.
        Object value = index < reply.size() ? reply.get(index) : null;
        if (value instanceof Long number) {
            return number;
        }
        if (value instanceof String text) {
            return Long.parseLong(text);
        }
        throw new IllegalStateException("Unexpected script reply element " + index + ": " + value + " in " + reply);
    }

    static int intAt(List<Object> reply, int index) {
        return Math.toIntExact(longAt(reply, index));
    }
}
