package dev.bulwark.cli;

import dev.bulwark.cli.internal.BulwarkCommand;
import java.io.PrintWriter;
import java.util.Objects;

/**
 * The entry point of the {@code bulwark} command: {@code java -jar bulwark.jar simulate|sweep|compare [options]}, and
 * {@code java -jar bulwark.jar migrate resilience4j FILE}.
 *
 * <p>Exit codes: 0 on success; 1 when {@code sweep} found no setting that meets the targets, or the run failed;
 * 2 for bad input (an unknown flag, a malformed value, a file {@code migrate} cannot read), reported on one line
 * without a stack trace.
 */
public final class BulwarkCli {

    private BulwarkCli() {
    }

    /**
     * Runs the command and exits the JVM with its exit code.
     *
     * @param args the command line
     */
    public static void main(String[] args) {
        PrintWriter out = new PrintWriter(System.out, true);
        PrintWriter err = new PrintWriter(System.err, true);
        int exitCode = run(out, err, args);
        out.flush();
        err.flush();
        System.exit(exitCode);
    }

    /**
     * Runs the command without exiting: reports go to {@code out}, progress and errors to {@code err}.
     * Thread-safe in the sense that separate invocations share no state.
     *
     * @param out where reports are written
     * @param err where progress and error messages are written
     * @param args the command line
     * @return the exit code
     * @throws NullPointerException when an argument is {@code null}
     */
    public static int run(PrintWriter out, PrintWriter err, String... args) {
        Objects.requireNonNull(out, "out");
        Objects.requireNonNull(err, "err");
        Objects.requireNonNull(args, "args");
        return BulwarkCommand.execute(out, err, args);
    }
}
