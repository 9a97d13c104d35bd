package dev.bulwark.cli.internal.migrate;

import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * Reads a Spring Boot configuration file into its documents, each a list of {@link FlatEntry} in file order, the way
 * Boot flattens them: nested YAML keys joined with dots, list items indexed ({@code key[0]}). A YAML file splits into
 * documents at {@code ---}, a properties file at a {@code #---} or {@code !---} line, as Boot splits them. Stateless.
 */
public final class ConfigFileReader {

    private ConfigFileReader() {
    }

    /**
     * Reads the text of a file.
     *
     * @param fileName the file's name, for messages
     * @param text the file's contents
     * @param format its format
     * @return its documents, in file order
     * @throws BadConfigException when the text cannot be parsed, naming the line
     */
    public static List<List<FlatEntry>> read(String fileName, String text, Format format) {
        return format == Format.YAML ? yaml(fileName, text) : properties(fileName, text);
    }

    private static List<List<FlatEntry>> yaml(String fileName, String text) {
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false);
        Yaml yaml = new Yaml(new SafeConstructor(options));
        List<List<FlatEntry>> documents = new ArrayList<>();
        try {
            for (Node root : yaml.composeAll(new StringReader(text))) {
                List<FlatEntry> entries = new ArrayList<>();
                flatten(fileName, "", root, entries, Collections.newSetFromMap(new IdentityHashMap<>()));
                documents.add(entries);
            }
        } catch (MarkedYAMLException unparseable) {
            int line = unparseable.getProblemMark() != null ? unparseable.getProblemMark().getLine() + 1 : 0;
            String problem = unparseable.getProblem() != null ? unparseable.getProblem() : unparseable.getMessage();
            throw new BadConfigException(fileName, line, "not valid YAML: " + oneLine(problem));
        } catch (YAMLException unparseable) {
            throw new BadConfigException(fileName, 0, "not valid YAML: " + oneLine(unparseable.getMessage()));
        }
        return documents;
    }

    private static void flatten(String fileName, String prefix, Node node, List<FlatEntry> entries, Set<Node> open) {
        int line = node.getStartMark().getLine() + 1;
        // An alias may name a node that contains it; Boot's loader refuses that too, and following it never ends.
        if (!open.add(node)) {
            throw new BadConfigException(fileName, line, "'" + prefix + "' refers to itself through an alias");
        }
        if (node instanceof MappingNode mapping) {
            if (mapping.getValue().isEmpty() && !prefix.isEmpty()) {
                entries.add(new FlatEntry(prefix, "", line));
            }
            Set<String> seen = new HashSet<>();
            for (NodeTuple tuple : mapping.getValue()) {
                if (!(tuple.getKeyNode() instanceof ScalarNode key)) {
                    throw new BadConfigException(fileName, tuple.getKeyNode().getStartMark().getLine() + 1,
                            "a key must be a plain value");
                }
                if (!seen.add(key.getValue())) {
                    throw new BadConfigException(fileName, key.getStartMark().getLine() + 1,
                            "duplicate key '" + key.getValue() + "'");
                }
                String child = prefix.isEmpty() ? key.getValue() : prefix + "." + key.getValue();
                flatten(fileName, child, tuple.getValueNode(), entries, open);
            }
        } else if (node instanceof SequenceNode sequence) {
            if (sequence.getValue().isEmpty()) {
                entries.add(new FlatEntry(prefix, "", line));
            }
            int index = 0;
            for (Node item : sequence.getValue()) {
                flatten(fileName, prefix + "[" + index++ + "]", item, entries, open);
            }
        } else if (!prefix.isEmpty()) {
            String value = ((ScalarNode) node).getValue();
            // A YAML null (an empty value, "~" or "null" written plainly) is no value, as for Boot.
            boolean isNull = node.getTag().getValue().endsWith(":null");
            entries.add(new FlatEntry(prefix, isNull ? "" : value, line));
        }
        open.remove(node);
    }

    private static List<List<FlatEntry>> properties(String fileName, String text) {
        List<List<FlatEntry>> documents = new ArrayList<>();
        List<FlatEntry> entries = new ArrayList<>();
        String[] lines = text.split("\r\n|\r|\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String trimmed = lines[i].strip();
            if (trimmed.equals("#---") || trimmed.equals("!---")) {
                documents.add(entries);
                entries = new ArrayList<>();
                continue;
            }
            if (trimmed.isEmpty() || trimmed.startsWith("#") || trimmed.startsWith("!")) {
                continue;
            }
            int first = i;
            StringBuilder logical = new StringBuilder(lines[i]);
            while (endsInContinuation(lines[i]) && i + 1 < lines.length) {
                logical.append('\n').append(lines[++i]);
            }
            // java.util.Properties parses the logical line, so escapes and separators are read exactly as Boot
            // (which uses the same rules) reads them.
            Properties one = new Properties();
            try {
                one.load(new StringReader(logical.toString()));
            } catch (IOException | IllegalArgumentException malformed) {
                throw new BadConfigException(fileName, first + 1, "not a valid properties line: "
                        + oneLine(malformed.getMessage()));
            }
            for (String key : one.stringPropertyNames()) {
                entries.add(new FlatEntry(key, one.getProperty(key).strip(), first + 1));
            }
        }
        documents.add(entries);
        return documents;
    }

    private static boolean endsInContinuation(String line) {
        int backslashes = 0;
        for (int i = line.length() - 1; i >= 0 && line.charAt(i) == '\\'; i--) {
            backslashes++;
        }
        return backslashes % 2 == 1;
    }

    private static String oneLine(String message) {
        return message == null ? "cannot be parsed" : message.strip().replaceAll("\\s*\\R\\s*", " ");
    }
}
