package dev.bulwark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The module boundary: only the entry point's package is exported; the commands are opened to picocli alone. */
class BulwarkCliModuleTest {

    private static ModuleDescriptor descriptor() throws Exception {
        try (InputStream in = Files.newInputStream(Path.of("target/classes/module-info.class"))) {
            return ModuleDescriptor.read(in);
        }
    }

    @Test
    void exportsExactlyTheEntryPointPackage() throws Exception {
        ModuleDescriptor descriptor = descriptor();

        assertThat(descriptor.name()).isEqualTo("dev.bulwark.cli");
        assertThat(descriptor.exports()).extracting(ModuleDescriptor.Exports::source)
                .containsExactly("dev.bulwark.cli");
        assertThat(descriptor.exports()).allMatch(e -> !e.isQualified());
    }

    @Test
    void opensOnlyTheCommandsAndOnlyToPicocli() throws Exception {
        ModuleDescriptor descriptor = descriptor();

        assertThat(descriptor.opens()).hasSize(1);
        ModuleDescriptor.Opens opens = descriptor.opens().iterator().next();
        assertThat(opens.source()).isEqualTo("dev.bulwark.cli.internal");
        assertThat(opens.targets()).containsExactly("info.picocli");
    }

    @Test
    void requiresTheCoreAndTheChosenLibrariesOnly() throws Exception {
        Set<String> required = descriptor().requires().stream().map(ModuleDescriptor.Requires::name)
                .filter(name -> !name.startsWith("java."))
                .collect(Collectors.toSet());

        // concurrency.limits.core: Netflix's limiters, run side by side with ours by bulwark compare;
        // org.yaml.snakeyaml: bulwark migrate resilience4j reads application.yml with it.
        assertThat(required).containsExactlyInAnyOrder("dev.bulwark", "info.picocli", "HdrHistogram",
                "com.fasterxml.jackson.core", "concurrency.limits.core", "org.yaml.snakeyaml");
    }
}
