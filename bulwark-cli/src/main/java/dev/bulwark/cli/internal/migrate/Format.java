package dev.bulwark.cli.internal.migrate;

import java.util.Locale;
import java.util.Optional;

/** The two formats of a Spring Boot configuration file, chosen by the file's extension. */
public enum Format {

    /** {@code .yml} or {@code .yaml}. */
    YAML,

    /** {@code .properties}. */
    PROPERTIES;

    /**
     * The format of a file named so.
     *
     * @param fileName the file's name
     * @return its format, or empty when the extension is neither YAML's nor properties'
     */
    public static Optional<Format> of(String fileName) {
        String name = fileName.toLowerCase(Locale.ROOT);
        if (name.endsWith(".yml") || name.endsWith(".yaml")) {
            return Optional.of(YAML);
        }
        if (name.endsWith(".properties")) {
            return Optional.of(PROPERTIES);
        }
        return Optional.empty();
    }
}
