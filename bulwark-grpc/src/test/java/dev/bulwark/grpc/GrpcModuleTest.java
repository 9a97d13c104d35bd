package dev.bulwark.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The module boundary: only the API package is exported; the implementation package is not. */
class GrpcModuleTest {

    @Test
    void exportsExactlyTheApiPackage() throws Exception {
        ModuleDescriptor descriptor;
        try (InputStream in = Files.newInputStream(Path.of("target/classes/module-info.class"))) {
            descriptor = ModuleDescriptor.read(in);
        }

        assertThat(descriptor.name()).isEqualTo("dev.bulwark.grpc");
        assertThat(descriptor.exports()).extracting(ModuleDescriptor.Exports::source)
                .containsExactly("dev.bulwark.grpc");
        assertThat(descriptor.exports()).allMatch(exports -> !exports.isQualified());
        assertThat(descriptor.opens()).isEmpty();
        assertThat(descriptor.requires()).extracting(ModuleDescriptor.Requires::name)
                .contains("dev.bulwark", "io.grpc");
        assertThat(Path.of("target/classes/dev/bulwark/grpc/internal")).as("the implementation package exists")
                .isDirectory();
    }
}
