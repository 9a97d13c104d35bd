package dev.bulwark.cli.internal.migrate;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One Resilience4j section of the input ({@code resilience4j.retry}, ...): its shared configs and its instances
 * ({@code instances}, or the older name {@code backends}, which binds to the same map), in file order.
 */
final class Section {

    final Kind kind;
    final int line;
    final Map<String, Props> configs = new LinkedHashMap<>();
    final Map<String, Props> instances = new LinkedHashMap<>();

    Section(Kind kind, int line) {
        this.kind = kind;
        this.line = line;
    }
}
