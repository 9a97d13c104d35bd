package dev.bulwark.benchmarks.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the JSON that JMH writes with {@code -rf json}: an array with one object per benchmark and parameter set.
 * Not thread-safe.
 */
final class JmhJson {

    /** The allocation metric of {@code -prof gc}; JMH before 1.37 prefixed its name with a middle dot. */
    private static final List<String> ALLOCATION_METRICS = List.of("gc.alloc.rate.norm", "\u00b7gc.alloc.rate.norm");

    private final ObjectMapper mapper;

    JmhJson(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    /**
     * Reads the measurements in one JMH result file.
     *
     * @throws IOException when the file cannot be read or is not JMH's JSON
     */
    List<Measurement> read(Path file) throws IOException {
        JsonNode root = mapper.readTree(file.toFile());
        return parse(root, file.toString());
    }

    /** Parses JMH's JSON already read into a tree; {@code source} names it in error messages. */
    static List<Measurement> parse(JsonNode root, String source) throws IOException {
        if (root == null || !root.isArray()) {
            throw new IOException(source + " is not a JMH JSON result (expected an array of benchmarks)");
        }
        List<Measurement> measurements = new ArrayList<>();
        for (JsonNode entry : root) {
            String fullName = text(entry, "benchmark", source);
            JsonNode primary = entry.path("primaryMetric");
            if (!primary.has("score")) {
                throw new IOException(source + ": benchmark " + fullName + " has no primaryMetric.score");
            }
            String subject = entry.path("params").path("subject").asText("");
            measurements.add(new Measurement(shortName(fullName), subject, entry.path("threads").asInt(1),
                    number(primary.get("score")), number(primary.get("scoreError")),
                    primary.path("scoreUnit").asText(""), allocation(entry.path("secondaryMetrics"))));
        }
        return measurements;
    }

    /** {@code dev.bulwark.benchmarks.UncontendedCallBenchmark.call} becomes {@code UncontendedCallBenchmark.call}. */
    static String shortName(String fullName) {
        int method = fullName.lastIndexOf('.');
        int type = method > 0 ? fullName.lastIndexOf('.', method - 1) : -1;
        return fullName.substring(type + 1);
    }

    private static double allocation(JsonNode secondary) {
        for (String name : ALLOCATION_METRICS) {
            JsonNode metric = secondary.get(name);
            if (metric != null && metric.has("score")) {
                return number(metric.get("score"));
            }
        }
        return Double.NaN;
    }

    /** JMH writes {@code "NaN"} as a string where it has no number. */
    private static double number(JsonNode node) {
        if (node == null || node.isNull()) {
            return Double.NaN;
        }
        if (node.isNumber()) {
            return node.doubleValue();
        }
        try {
            return Double.parseDouble(node.asText());
        } catch (NumberFormatException notANumber) {
            return Double.NaN;
        }
    }

    private static String text(JsonNode entry, String field, String source) throws IOException {
        JsonNode node = entry.get(field);
        if (node == null || !node.isTextual()) {
            throw new IOException(source + ": an entry has no '" + field + "'");
        }
        return node.asText();
    }
}
