package dev.bulwark.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The module boundary: only the API package is exported, and every public API type is closed to extension. */
class RedisModuleTest {

    private static ModuleDescriptor descriptor() throws Exception {
        try (InputStream in = Files.newInputStream(Path.of("target/classes/module-info.class"))) {
            return ModuleDescriptor.read(in);
        }
    }

    @Test
    void exportsExactlyTheApiPackage() throws Exception {
        ModuleDescriptor descriptor = descriptor();

        assertThat(descriptor.name()).isEqualTo("dev.bulwark.redis");
        assertThat(descriptor.exports()).extracting(ModuleDescriptor.Exports::source)
                .containsExactly("dev.bulwark.redis");
        assertThat(descriptor.exports()).allMatch(e -> !e.isQualified());
        assertThat(descriptor.opens()).isEmpty();
    }

    @Test
    void requiresTheCoreAndLettuceTransitively() throws Exception {
        Set<String> transitive = descriptor().requires().stream()
                .filter(r -> r.modifiers().contains(ModuleDescriptor.Requires.Modifier.TRANSITIVE))
                .map(ModuleDescriptor.Requires::name).collect(Collectors.toSet());

        assertThat(transitive).containsExactlyInAnyOrder("dev.bulwark", "lettuce.core");
    }

    @Test
    void everyPublicApiTypeIsFinalSealedOrAnInterfaceOrRecordOrEnum() throws Exception {
        List<Class<?>> publicTypes;
        try (Stream<Path> files = Files.list(Path.of("target/classes/dev/bulwark/redis"))) {
            publicTypes = files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".class"))
                    .map(n -> "dev.bulwark.redis." + n.substring(0, n.length() - ".class".length()))
                    .map(RedisModuleTest::load).filter(c -> Modifier.isPublic(c.getModifiers()))
                    .collect(Collectors.toList());
        }

        assertThat(publicTypes).extracting(Class::getName).contains("dev.bulwark.redis.RedisBulkhead",
                "dev.bulwark.redis.RedisBulkhead$Builder",
                "dev.bulwark.redis.FailureMode", "dev.bulwark.redis.LostPermit",
                "dev.bulwark.redis.RedisBulkheadListener", "dev.bulwark.redis.RedisBulkheadException");
        for (Class<?> type : publicTypes) {
            boolean closed = Modifier.isFinal(type.getModifiers()) || type.isInterface() || type.isEnum()
                    || type.isRecord() || type.isSealed();
            assertThat(closed).as("%s is final, sealed, an interface, a record or an enum", type).isTrue();
        }
    }

    private static Class<?> load(String name) {
        try {
            return Class.forName(name);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }
}
