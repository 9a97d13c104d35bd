package dev.bulwark.benchmarks.report;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The parsed command line of {@link Report}: a command, {@code --name value} options (an option may repeat) and
 * positional arguments. Immutable once parsed.
 */
final class Arguments {

    private final String command;
    private final Map<String, List<String>> options;
    private final List<String> positionals;

    private Arguments(String command, Map<String, List<String>> options, List<String> positionals) {
        this.command = command;
        this.options = options;
        this.positionals = positionals;
    }

    static Arguments parse(String... args) {
        if (args.length == 0) {
            throw new IllegalArgumentException("expected a command: conformance, assemble, table or readme");
        }
        Map<String, List<String>> options = new LinkedHashMap<>();
        List<String> positionals = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            if (args[i].startsWith("--")) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("option " + args[i] + " needs a value");
                }
                options.computeIfAbsent(args[i].substring(2), name -> new ArrayList<>()).add(args[++i]);
            } else {
                positionals.add(args[i]);
            }
        }
        return new Arguments(args[0], options, positionals);
    }

    String command() {
        return command;
    }

    String value(String name) {
        List<String> values = options.get(name);
        if (values == null) {
            throw new IllegalArgumentException(command + " needs --" + name);
        }
        return values.get(values.size() - 1);
    }

    Path path(String name) {
        return Path.of(value(name));
    }

    List<Path> paths(String name) {
        List<String> values = options.get(name);
        if (values == null) {
            throw new IllegalArgumentException(command + " needs --" + name);
        }
        List<Path> paths = new ArrayList<>();
        values.forEach(value -> paths.add(Path.of(value)));
        return paths;
    }

    Path positional() {
        if (positionals.size() != 1) {
            throw new IllegalArgumentException(command + " needs exactly one file but got " + positionals);
        }
        return Path.of(positionals.get(0));
    }
}
