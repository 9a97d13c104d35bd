package dev.bulwark.cli.internal;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
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
        List<String> suggestions = exception.isUnknownOption()
                ? similarOptions(exception.getCommandLine().getCommandSpec(), first)
                : exception.getSuggestions();
        String hint = suggestions.isEmpty() ? "" : " (did you mean " + String.join(" or ", suggestions) + "?)";
        if (exception.isUnknownOption()) {
            return "unknown option '" + first + "'" + hint;
        }
        return "unexpected argument '" + first + "'" + hint;
    }

    /** The options whose name is within two edits of what was typed ({@code --lmit}: {@code --limit}). */
    static List<String> similarOptions(CommandSpec spec, String typed) {
        String name = typed.contains("=") ? typed.substring(0, typed.indexOf('=')) : typed;
        List<String> similar = new ArrayList<>();
        for (OptionSpec option : spec.options()) {
            String longest = option.longestName();
            if (longest.startsWith("--") && editDistance(name, longest) <= 2) {
                similar.add(longest);
            }
        }
        return similar;
    }

    static int editDistance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }

    private static String oneLine(String message) {
        return message == null ? "invalid input" : message.strip().replaceAll("\\s*\\R\\s*", "; ");
    }
}
