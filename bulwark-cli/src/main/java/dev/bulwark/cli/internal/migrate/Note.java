package dev.bulwark.cli.internal.migrate;

/**
 * A setting the migration could not carry over exactly, and why; printed as one comment line.
 *
 * @param line the input line it is about, from 1 (notes print in line order)
 * @param key the Resilience4j key it is about, as written in the input
 * @param reason why it was not migrated, or how Bulwark's behaviour differs
 */
public record Note(int line, String key, String reason) {

    /**
     * The note as printed, without the comment marker.
     *
     * @return {@code key (line N): reason}
     */
    public String text() {
        return key + " (line " + line + "): " + reason;
    }
}
