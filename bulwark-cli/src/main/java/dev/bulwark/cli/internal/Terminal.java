package dev.bulwark.cli.internal;

import java.io.Console;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/** Tells whether the command runs on an interactive terminal. */
final class Terminal {

    private Terminal() {
    }

    /**
     * Returns whether standard input and output are a terminal. JDK 22 and later may return a console even
     * when they are not, and answer the question with {@code Console.isTerminal()}; earlier JDKs return no
     * console then.
     */
    static boolean isInteractive() {
        Console console = System.console();
        if (console == null) {
            return false;
        }
        try {
            Method isTerminal = Console.class.getMethod("isTerminal");
            return (Boolean) isTerminal.invoke(console);
        } catch (NoSuchMethodException beforeJdk22) {
            return true;
        } catch (IllegalAccessException | InvocationTargetException e) {
            return false;
        }
    }
}
