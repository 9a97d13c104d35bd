package dev.bulwark;

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

/**
 * The module boundary: the API package is the only export to everyone, the shared implementation packages are
 * exported to Bulwark's own modules alone (Redis, the metrics bindings, Spring), and the core depends on nothing but
 * the JDK.
 */
class BulwarkModuleTest {

    private static ModuleDescriptor descriptor() throws Exception {
        try (InputStream in = Files.newInputStream(Path.of("target/classes/module-info.class"))) {
            return ModuleDescriptor.read(in);
        }
    }

    @Test
    void exportsExactlyTheApiPackage() throws Exception {
        ModuleDescriptor descriptor = descriptor();

        assertThat(descriptor.name()).isEqualTo("dev.bulwark");
        // The API package is the only export to everyone; internals may be exported to Bulwark's own modules only.
        assertThat(descriptor.exports()).filteredOn(e -> !e.isQualified())
                .extracting(ModuleDescriptor.Exports::source).containsExactly("dev.bulwark");
        assertThat(descriptor.exports()).filteredOn(ModuleDescriptor.Exports::isQualified).allSatisfy(e -> {
            assertThat(e.source()).startsWith("dev.bulwark.internal");
            assertThat(e.targets()).allMatch(target -> target.startsWith("dev.bulwark."));
        });
        assertThat(descriptor.opens()).isEmpty();
    }

    @Test
    void exportsTheSharedImplementationOnlyToBulwarksOwnModules() throws Exception {
        ModuleDescriptor descriptor = descriptor();

        assertThat(descriptor.exports()).filteredOn(ModuleDescriptor.Exports::isQualified)
                .extracting(ModuleDescriptor.Exports::source)
                .containsExactlyInAnyOrder("dev.bulwark.internal.spi", "dev.bulwark.internal.util",
                        "dev.bulwark.internal.stats", "dev.bulwark.internal.binding", "dev.bulwark.internal.timer",
                        "dev.bulwark.internal.adaptive");
        // The kit of a bulkhead outside core: only the Redis module implements one.
        assertThat(descriptor.exports()).filteredOn(e -> e.source().equals("dev.bulwark.internal.spi"))
                .flatExtracting(ModuleDescriptor.Exports::targets).containsExactly("dev.bulwark.redis");
        // Plain utilities: argument checks and field handles (Redis), the wording of a wait (Spring's refusals), a
        // stage's failure as the operation threw it (Redis, Spring, Reactor, gRPC, HTTP).
        assertThat(descriptor.exports()).filteredOn(e -> e.source().equals("dev.bulwark.internal.util"))
                .flatExtracting(ModuleDescriptor.Exports::targets)
                .containsExactlyInAnyOrder("dev.bulwark.redis", "dev.bulwark.spring", "dev.bulwark.grpc",
                        "dev.bulwark.http", "dev.bulwark.reactor");
        assertThat(descriptor.exports()).filteredOn(e -> e.source().equals("dev.bulwark.internal.stats"))
                .flatExtracting(ModuleDescriptor.Exports::targets)
                .containsExactlyInAnyOrder("dev.bulwark.micrometer", "dev.bulwark.opentelemetry");
        // The binding life cycle both metrics back ends share (weak references, cleaner, the table of bindings).
        assertThat(descriptor.exports()).filteredOn(e -> e.source().equals("dev.bulwark.internal.binding"))
                .flatExtracting(ModuleDescriptor.Exports::targets)
                .containsExactlyInAnyOrder("dev.bulwark.micrometer", "dev.bulwark.opentelemetry");
        // The waiters' base class (internal.spi) extends the timing wheel's node, so the Redis waiters need it.
        assertThat(descriptor.exports()).filteredOn(e -> e.source().equals("dev.bulwark.internal.timer"))
                .flatExtracting(ModuleDescriptor.Exports::targets).containsExactly("dev.bulwark.redis");
        // The cluster-wide bulkhead runs the in-process adaptive algorithms (made by AdaptiveLimiters).
        assertThat(descriptor.exports()).filteredOn(e -> e.source().equals("dev.bulwark.internal.adaptive"))
                .flatExtracting(ModuleDescriptor.Exports::targets).containsExactly("dev.bulwark.redis");
    }

    @Test
    void requiresOnlyJdkModulesAtRunTime() throws Exception {
        Set<ModuleDescriptor.Requires> requires = descriptor().requires();
        Set<String> runtime = requires.stream()
                .filter(r -> !r.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC))
                .map(ModuleDescriptor.Requires::name).collect(Collectors.toSet());
        Set<String> compileOnly = requires.stream()
                .filter(r -> r.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC))
                .map(ModuleDescriptor.Requires::name).collect(Collectors.toSet());

        assertThat(runtime).allMatch(name -> name.startsWith("java.") || name.startsWith("jdk."));
        // Two compile-only exceptions, neither needed at run time: JSpecify's annotations (for compilers), and
        // BlockHound's integration interface, implemented by a class only BlockHound's service loader ever loads.
        assertThat(compileOnly).containsExactlyInAnyOrder("org.jspecify", "reactor.blockhound");
        // The integration is registered through META-INF/services alone: a "provides" of BlockHound's service would
        // stop the module from resolving on a module path without BlockHound.
        assertThat(descriptor().provides()).isEmpty();
    }

    @Test
    void everyPublicApiTypeIsFinalSealedOrAnInterfaceOrRecordOrEnum() throws Exception {
        List<Class<?>> publicTypes;
        try (Stream<Path> files = Files.list(Path.of("target/classes/dev/bulwark"))) {
            publicTypes = files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".class"))
                    .map(n -> "dev.bulwark." + n.substring(0, n.length() - ".class".length()))
                    .map(BulwarkModuleTest::load).filter(c -> Modifier.isPublic(c.getModifiers()))
                    .collect(Collectors.toList());
        }

        assertThat(publicTypes).isNotEmpty();
        for (Class<?> type : publicTypes) {
            boolean closed = Modifier.isFinal(type.getModifiers()) || type.isInterface() || type.isEnum()
                    || type.isRecord() || type.isSealed();
            assertThat(closed).as("%s is final, sealed, an interface, a record or an enum", type).isTrue();
        }
    }

    private static Class<?> load(String name) {
        try {
            return Class.forName(name.replace('$', '$'));
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }
}
