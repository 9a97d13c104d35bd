package dev.bulwark.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The module boundary: only the API package is exported, and only the OpenTelemetry API is required. */
class OpenTelemetryModuleTest {

    @Test
    void exportsExactlyTheApiPackageAndRequiresOnlyTheApi() throws Exception {
        ModuleDescriptor descriptor;
        try (InputStream in = Files.newInputStream(Path.of("target/classes/module-info.class"))) {
            descriptor = ModuleDescriptor.read(in);
        }

        assertThat(descriptor.name()).isEqualTo("dev.bulwark.opentelemetry");
        assertThat(descriptor.exports()).extracting(ModuleDescriptor.Exports::source)
                .containsExactly("dev.bulwark.opentelemetry");
        assertThat(descriptor.exports()).allMatch(exports -> !exports.isQualified());
        assertThat(descriptor.opens()).isEmpty();
        assertThat(descriptor.requires()).extracting(ModuleDescriptor.Requires::name)
                .containsExactlyInAnyOrder("java.base", "dev.bulwark", "io.opentelemetry.api");
        assertThat(Path.of("target/classes/dev/bulwark/opentelemetry/internal"))
                .as("the implementation package exists").isDirectory();
    }
}
