package dev.bulwark.cli.internal.migrate;

/**
 * The configuration file cannot be migrated: it cannot be read or parsed, its format is unknown, or a value in it is
 * one Resilience4j itself would refuse at startup. The message names the file and, where one applies, the line.
 */
public final class BadConfigException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param file the file's name as the user gave it
     * @param line the line (from 1), or 0 when none applies
     * @param message what is wrong
     */
    public BadConfigException(String file, int line, String message) {
        super(line > 0 ? file + ":" + line + ": " + message : file + ": " + message);
    }
}
