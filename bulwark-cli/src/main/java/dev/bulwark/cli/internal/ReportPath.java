package dev.bulwark.cli.internal;

import java.io.IOException;
import java.nio.file.Path;

/** What a command says when the HTML report given with {@code --report} cannot be written. */
final class ReportPath {

    private ReportPath() {
    }

    /**
     * Names the flag, the path and the reason: an exception such as {@code NoSuchFileException} has only the path
     * for a message, which alone does not say what went wrong.
     *
     * @param report the path given with {@code --report}
     * @param failed why writing it failed
     * @return the exception the command fails with (exit code 1, one line on the error stream)
     */
    static IOException writeFailed(Path report, IOException failed) {
        String reason = failed.getMessage() == null || failed.getMessage().equals(report.toString())
                ? failed.getClass().getSimpleName() : failed.getClass().getSimpleName() + ": " + failed.getMessage();
        return new IOException("--report: could not write '" + report + "' (" + reason + ")", failed);
    }
}
