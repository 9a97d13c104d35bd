package dev.bulwark.cli.internal;

import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.TypeConversionException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * Reports bad input on one line that names the flag and the accepted form, with no usage dump and no stack
 * trace, and exits with code 2: for example
 * {@code bulwark simulate: --limit: expected a whole number of at least 1, got '0' (see 'bulwark simulate --help')}.
 */
final class OneLineErrors implements IParameterExceptionHandler {

    @Override
    public int handleParseException(ParameterException exception, String[] args) {
        CommandLine commandLine = exception.getCommandLine();
        PrintWriter err = commandLine.getErr();
        String command = commandLine.getCommandSpec().qualifiedName();
        err.println(command + ": " + describe(exception) + " (see '" + command + " --help')");
        err.flush();
        return commandLine.getCommandSpec().exitCodeOnInvalidInput();
    }

    static String describe(ParameterException exception) {
        if (exception instanceof UnmatchedArgumentException) {
            return unmatched((UnmatchedArgumentException) exception);
        }
        ArgSpec argument = exception.getArgSpec();
        if (exception.getCause() instanceof TypeConversionException && argument instanceof OptionSpec) {
            return ((OptionSpec) argument).longestName() + ": " + oneLine(exception.getCause().getMessage());
        }
        String message = oneLine(exception.getMessage());
        return message.startsWith("Error: ") ? message.substring("Error: ".length()) : message;
    }

    private static String unmatched(UnmatchedArgumentException exception) {
        List<String> unmatched = exception.getUnmatched();
        String first = unmatched.isEmpty() ? "?" : unmatched.get(0);
        List<String> suggestions = exception.getSuggestions();
        String hint = suggestions.isEmpty() ? "" : " (did you mean " + String.join(" or ", suggestions) + "?)";
        if (exception.isUnknownOption()) {
            return "unknown option '" + first + "'" + hint;
        }
        return "unexpected argument '" + first + "'" + hint;
    }

    private static String oneLine(String message) {
        return message == null ? "invalid input" : message.strip().replaceAll("\\s*\\R\\s*", "; ");
    }
}
