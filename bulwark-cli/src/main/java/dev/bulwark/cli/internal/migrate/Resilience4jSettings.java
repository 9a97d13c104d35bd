package dev.bulwark.cli.internal.migrate;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code resilience4j.*} settings of a configuration file, grouped by section, config and instance as Spring
 * binds them. Keys outside {@code resilience4j} are not read. What is read but not carried over (other sections such
 * as the circuit breaker, a section's own settings such as its aspect order, properties a section does not have, a
 * document for one profile only) is reported as a {@link Note}.
 */
final class Resilience4jSettings {

    final Map<Kind, Section> sections = new EnumMap<>(Kind.class);
    final List<Note> notes = new ArrayList<>();
    /** The keys already noted, so that a section or property is noted once, not once per entry under it. */
    private final Set<String> noted = new HashSet<>();

    private Resilience4jSettings() {
    }

    static Resilience4jSettings parse(List<List<FlatEntry>> documents) {
        Resilience4jSettings settings = new Resilience4jSettings();
        for (List<FlatEntry> document : documents) {
            FlatEntry profile = profileOf(document);
            if (profile != null) {
                if (document.stream().anyMatch(entry -> isResilience4j(path(entry.key())))) {
                    settings.notes.add(new Note(profile.line(), profile.key(), "this document applies only to profile '"
                            + profile.value() + "': its resilience4j settings are not migrated (migrate them from "
                            + "a file of their own into the profile's document)"));
                }
                continue;
            }
            for (FlatEntry entry : document) {
                settings.add(entry);
            }
        }
        return settings;
    }

    private static FlatEntry profileOf(List<FlatEntry> document) {
        for (FlatEntry entry : document) {
            String canonical = String.join(".", path(entry.key()).stream().map(Kind::canonical).toList());
            if (canonical.equals("spring.config.activate.onprofile") || canonical.equals("spring.profiles")) {
                return entry;
            }
        }
        return null;
    }

    private static boolean isResilience4j(List<String> path) {
        return !path.isEmpty() && Kind.canonical(path.get(0)).equals("resilience4j");
    }

    private void add(FlatEntry entry) {
        List<String> path = path(entry.key());
        if (!isResilience4j(path) || path.size() < 2) {
            return;
        }
        Kind kind = Kind.of(path.get(1)).orElse(null);
        String sectionKey = "resilience4j." + path.get(1);
        if (kind == null) {
            noteOnce(entry.line(), sectionKey, otherSection(Kind.canonical(path.get(1))));
            return;
        }
        Section section = sections.computeIfAbsent(kind, k -> new Section(k, entry.line()));
        if (path.size() < 3) {
            return;
        }
        String group = Kind.canonical(path.get(2));
        boolean instances = group.equals("instances") || group.equals("backends");
        if (!instances && !group.equals("configs")) {
            noteOnce(entry.line(), sectionKey + "." + path.get(2), sectionSetting(group));
            return;
        }
        if (path.size() < 4) {
            return;
        }
        String name = path.get(3);
        // A name Spring keeps only in brackets (one with dots) is written back in them.
        String written = name.matches("[A-Za-z0-9_-]+") ? name : "[" + name + "]";
        String groupKey = sectionKey + "." + path.get(2) + "." + written;
        Map<String, Props> group3 = instances ? section.instances : section.configs;
        Props props = group3.computeIfAbsent(name, n -> new Props(n, groupKey, entry.line()));
        if (path.size() < 5 || path.get(4).startsWith("[")) {
            return;
        }
        String property = Kind.canonical(path.get(4));
        String propertyKey = groupKey + "." + path.get(4);
        if (kind == Kind.RETRY && property.equals("maxretryattempts")) {
            // Resilience4j 1.x's name, in its documentation's examples still; 2.x ignores it, but it says what the
            // author meant, so it is read as maxAttempts unless that is set too.
            noteOnce(entry.line(), propertyKey, "Resilience4j 1.x's name for maxAttempts (2.x ignores it and "
                    + "makes 3 attempts): migrated as maxAttempts" + (props.get("maxattempts") != null
                    ? ", but maxAttempts is set too and wins" : ""));
            if (props.get("maxattempts") != null) {
                return;
            }
            property = "maxattempts";
        }
        boolean list = Kind.LIST_PROPERTIES.contains(property);
        boolean nested = path.size() > 5 && !(list && path.size() == 6 && path.get(5).startsWith("["));
        if (!kind.properties.contains(property) || nested) {
            if (!kind.properties.contains(property)) {
                noteOnce(entry.line(), propertyKey, unknownProperty(kind, property));
            } else if (nested) {
                noteOnce(entry.line(), propertyKey, "expected a single value or a list, not a map: ignored");
            }
            return;
        }
        if (entry.value().isEmpty()) {
            return;    // an empty value binds to nothing, as in Spring
        }
        Setting setting = props.settings.get(property);
        boolean item = path.size() == 6;
        if (setting == null || !item) {
            // A later document's value replaces an earlier one, as Boot's later documents override.
            setting = new Setting(propertyKey, entry.line());
            props.settings.put(property, setting);
        }
        if (list && !item) {
            for (String part : entry.value().split(",")) {
                if (!part.isBlank()) {
                    setting.values.add(part.strip());
                }
            }
        } else {
            setting.values.add(entry.value().strip());
        }
    }

    private void noteOnce(int line, String key, String reason) {
        if (noted.add(key)) {
            notes.add(new Note(line, key, reason));
        }
    }

    private static String otherSection(String canonical) {
        return switch (canonical) {
            case "circuitbreaker" -> "Bulwark has no circuit breaker: not migrated";
            case "ratelimiter" -> "Bulwark has no rate limiter (a bulkhead bounds calls at once, not calls per "
                    + "period): not migrated";
            default -> "not a bulkhead, thread-pool bulkhead, retry or time limiter section: not migrated";
        };
    }

    private static String sectionSetting(String canonical) {
        if (canonical.endsWith("aspectorder")) {
            return "no equivalent: Bulwark's annotations always nest retry, then timeout, then bulkhead "
                    + "(Resilience4j's default order)";
        }
        if (canonical.equals("tags")) {
            return "no equivalent: Bulwark tags its meters with the policy's name only";
        }
        return "no Bulwark equivalent: not migrated";
    }

    private static String unknownProperty(Kind kind, String canonical) {
        if (kind == Kind.BULKHEAD && canonical.equals("faircallhandlingstrategyenabled")) {
            return "not a property of Resilience4j's Spring Boot starter (only of BulkheadConfig's builder), so "
                    + "Spring ignores it; Bulwark's queue always serves callers in arrival order (fair)";
        }
        return "not a property of resilience4j." + kind.section + " instances: Spring ignores it, and so does "
                + "the migration";
    }

    /**
     * Splits a flat key into its parts as Spring does: dots separate, {@code [name]} is one part that may hold dots,
     * and {@code name[0]} gives the part {@code name} followed by the index part {@code [0]}.
     */
    static List<String> path(String key) {
        List<String> parts = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        int i = 0;
        while (i < key.length()) {
            char c = key.charAt(i);
            if (c == '[') {
                int close = key.indexOf(']', i);
                if (close < 0) {
                    current.append(key.substring(i));
                    break;
                }
                String inside = key.substring(i + 1, close);
                if (current.length() > 0 || isIndex(inside)) {
                    if (current.length() > 0) {
                        parts.add(current.toString());
                        current.setLength(0);
                    }
                    parts.add("[" + inside + "]");
                } else {
                    parts.add(inside);
                }
                i = close + 1;
                if (i < key.length() && key.charAt(i) == '.') {
                    i++;
                }
            } else if (c == '.') {
                parts.add(current.toString());
                current.setLength(0);
                i++;
            } else {
                current.append(c);
                i++;
            }
        }
        if (current.length() > 0) {
            parts.add(current.toString());
        }
        return parts;
    }

    private static boolean isIndex(String inside) {
        return !inside.isEmpty() && inside.chars().allMatch(Character::isDigit);
    }
}
