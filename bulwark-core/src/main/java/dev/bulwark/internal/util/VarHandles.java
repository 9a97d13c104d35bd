package dev.bulwark.internal.util;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Finds the {@link VarHandle} of a field for the lock-free code that compare-and-sets it, so each such class
 * declares its handle in one line instead of a static block.
 */
public final class VarHandles {

    private VarHandles() {
    }

    /**
     * Finds the handle of a field declared by the lookup's class.
     *
     * @param lookup {@code MethodHandles.lookup()} of the class that declares the field (it grants the access)
     * @param field the field's name
     * @param type the field's type
     * @return the handle
     * @throws ExceptionInInitializerError when the field does not exist: a programming error, found when the class
     *     initializes
     */
    public static VarHandle field(MethodHandles.Lookup lookup, String field, Class<?> type) {
        return field(lookup, lookup.lookupClass(), field, type);
    }

    /**
     * Finds the handle of a field declared by another class than the lookup's: a nested class, or a superclass that
     * lays the field out (padding).
     *
     * @param lookup {@code MethodHandles.lookup()} of a class with access to the field
     * @param declaring the class that declares the field
     * @param field the field's name
     * @param type the field's type
     * @return the handle
     * @throws ExceptionInInitializerError when the field does not exist or is not accessible: a programming error,
     *     found when the class initializes
     */
    public static VarHandle field(MethodHandles.Lookup lookup, Class<?> declaring, String field, Class<?> type) {
        try {
            return lookup.findVarHandle(declaring, field, type);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
