package dev.bulwark.cli.internal.migrate;

import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Prints a migration's result as {@code application.yml} or {@code application.properties} text: a header, one
 * comment line per {@link Note} in input-line order, then the {@code bulwark.*} settings. Stateless.
 */
public final class BulwarkConfigWriter {

    /** A map key Spring keeps as written without brackets. */
    private static final Pattern PLAIN_KEY = Pattern.compile("[A-Za-z0-9_-]+");

    private BulwarkConfigWriter() {
    }

    /**
     * Writes the result.
     *
     * @param result the migration's result
     * @param format the format to write, that of the input
     * @param source the input file's name, for the header
     * @return the text, ending with a line break
     */
    public static String write(Resilience4jMigration.Result result, Format format, String source) {
        String comment = "# ";
        StringBuilder out = new StringBuilder();
        out.append(comment).append("bulwark.* settings migrated from the resilience4j.* settings of ").append(source)
                .append(" by 'bulwark migrate resilience4j'\n");
        if (!result.notes().isEmpty()) {
            out.append(comment).append("Not migrated, or migrated with a difference:\n");
            for (Note note : result.notes()) {
                out.append(comment).append(note.text()).append('\n');
            }
        }
        BulwarkConfig config = result.config();
        if (config.isEmpty()) {
            out.append(comment).append("No resilience4j bulkhead, thread-pool-bulkhead, retry or timelimiter "
                    + "policy found: nothing to migrate\n");
            return out.toString();
        }
        if (format == Format.YAML) {
            yaml(config, out);
        } else {
            properties(config, out);
        }
        return out.toString();
    }

    private static void yaml(BulwarkConfig config, StringBuilder out) {
        out.append("bulwark:\n");
        if (!config.defaults.isEmpty()) {
            out.append("  defaults:\n");
            config.defaults.forEach((kind, settings) -> yamlPolicy(out, kind, settings));
        }
        config.policies.forEach((group, policies) -> {
            if (!policies.isEmpty()) {
                out.append("  ").append(group).append(":\n");
                policies.forEach((name, settings) -> yamlPolicy(out, yamlKey(name), settings));
            }
        });
    }

    private static void yamlPolicy(StringBuilder out, String name, Map<String, Object> settings) {
        out.append("    ").append(name).append(':').append('\n');
        settings.forEach((key, value) -> {
            out.append("      ").append(key).append(':');
            if (value instanceof List<?> items) {
                out.append('\n');
                for (Object item : items) {
                    out.append("        - ").append(item).append('\n');
                }
            } else {
                out.append(' ').append(value).append('\n');
            }
        });
    }

    private static String yamlKey(String name) {
        if (PLAIN_KEY.matcher(name).matches()) {
            return name;
        }
        return "\"[" + name.replace("\\", "\\\\").replace("\"", "\\\"") + "]\"";
    }

    private static void properties(BulwarkConfig config, StringBuilder out) {
        config.defaults.forEach((kind, settings) -> propertiesPolicy(out, "bulwark.defaults." + kind, settings));
        config.policies.forEach((group, policies) -> policies.forEach((name, settings) ->
                propertiesPolicy(out, "bulwark." + group + "." + propertiesKey(name), settings)));
    }

    private static void propertiesPolicy(StringBuilder out, String prefix, Map<String, Object> settings) {
        if (settings.isEmpty()) {
            out.append(prefix).append("=\n");
        }
        settings.forEach((key, value) -> {
            out.append(prefix).append('.').append(key).append('=');
            if (value instanceof List<?> items) {
                out.append(String.join(",", items.stream().map(String::valueOf).toList()));
            } else {
                out.append(value);
            }
            out.append('\n');
        });
    }

    private static String propertiesKey(String name) {
        String key = PLAIN_KEY.matcher(name).matches() ? name : "[" + name + "]";
        return key.replace("\\", "\\\\").replace(" ", "\\ ").replace(":", "\\:").replace("=", "\\=");
    }
}
