package dev.bulwark.cli.internal;

import dev.bulwark.cli.BulwarkCli;
import java.io.PrintWriter;
import java.io.StringWriter;

/**
 * Runs the command line in this JVM, as a user would from a shell, and keeps what it printed: the one harness of the
 * command tests, so that each of them states only its arguments and what it expects.
 */
final class CliRun {

    private CliRun() {
    }

    /** What one run returned and printed. */
    static final class Outcome {
        final int exitCode;
        final String out;
        final String err;

        private Outcome(int exitCode, String out, String err) {
            this.exitCode = exitCode;
            this.out = out;
            this.err = err;
        }
    }

    /**
     * Runs {@code bulwark} with {@code args}, standard output and error each captured in full.
     *
     * @param args the command line, the command first
     * @return the exit code and both outputs
     */
    static Outcome run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exitCode = BulwarkCli.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Outcome(exitCode, out.toString(), err.toString());
    }
}
