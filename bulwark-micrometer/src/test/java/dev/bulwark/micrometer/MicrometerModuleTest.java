package dev.bulwark.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The module boundary: only the API package is exported; the implementation package is not. */
class MicrometerModuleTest {

    @Test
    void exportsExactlyTheApiPackage() throws Exception {
        ModuleDescriptor descriptor;
        try (InputStream in = Files.newInputStream(Path.of("target/classes/module-info.class"))) {
            descriptor = ModuleDescriptor.read(in);
        }

        assertThat(descriptor.name()).isEqualTo("dev.bulwark.micrometer");
        assertThat(descriptor.exports()).extracting(ModuleDescriptor.Exports::source)
                .containsExactly("dev.bulwark.micrometer");
        assertThat(descriptor.exports()).allMatch(exports -> !exports.isQualified());
        assertThat(descriptor.opens()).isEmpty();
        assertThat(Path.of("target/classes/dev/bulwark/micrometer/internal")).as("the implementation package exists")
                .isDirectory();
    }
}
