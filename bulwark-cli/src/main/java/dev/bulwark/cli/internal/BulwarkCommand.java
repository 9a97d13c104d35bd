package dev.bulwark.cli.internal;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The top-level {@code bulwark} command; its work is done by the subcommands. */
@Command(name = "bulwark", mixinStandardHelpOptions = true, versionProvider = BulwarkVersion.class,
        usageHelpAutoWidth = true,
        description = {"Sizes a bulkhead before production: drives the real dev.bulwark.Bulkhead against a "
                + "simulated downstream and shows who is served, who is refused, how long they wait, and whether "
                + "the downstream stays healthy.", ""},
        subcommands = {SimulateCommand.class, SweepCommand.class, CompareCommand.class, MigrateCommand.class,
            CommandLine.HelpCommand.class},
        footer = {"", "Run 'bulwark simulate' to see the default scenario, 'bulwark compare' to see adaptive limiters "
                + "side by side, 'bulwark COMMAND --help' for the options.",
            "'bulwark migrate resilience4j application.yml' prints the bulwark.* equivalent of its Resilience4j "
                    + "settings.",
            "Exit codes: 0 success, 1 no setting met the sweep's targets or the run failed, 2 bad input."})
public final class BulwarkCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    /**
     * Creates the command; picocli fills it in.
     */
    public BulwarkCommand() {
    }

    /**
     * Runs the command line and returns the exit code.
     *
     * @param out where reports go
     * @param err where progress and errors go
     * @param args the command line
     * @return 0 on success, 1 when the run failed or a sweep found no setting, 2 for bad input
     */
    public static int execute(PrintWriter out, PrintWriter err, String... args) {
        return commandLine(out, err).execute(args);
    }

    /**
     * Builds the configured picocli command line (also used by tests to parse without running).
     *
     * @param out where reports go
     * @param err where progress and errors go
     * @return the command line
     */
    public static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        CommandLine commandLine = new CommandLine(new BulwarkCommand());
        commandLine.setOut(out);
        commandLine.setErr(err);
        commandLine.setParameterExceptionHandler(new OneLineErrors());
        commandLine.setExecutionExceptionHandler((exception, failed, parseResult) -> {
            PrintWriter errors = failed.getErr();
            String command = failed.getCommandSpec().qualifiedName();
            if (exception instanceof IOException || exception instanceof UncheckedIOException) {
                errors.println(command + ": " + exception.getMessage());
            } else {
                errors.println(command + ": the run failed: " + exception);
                exception.printStackTrace(errors);
            }
            errors.flush();
            return failed.getCommandSpec().exitCodeOnExecutionException();
        });
        return commandLine;
    }

    @Override
    public Integer call() {
        throw new ParameterException(spec.commandLine(), "missing command: simulate, sweep, compare or migrate");
    }
}
