package dev.bulwark.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The module boundary: only the API package is exported; the implementation is opened to Spring only. */
class SpringModuleTest {

    @Test
    void exportsExactlyTheApiPackage() throws Exception {
        ModuleDescriptor descriptor;
        try (InputStream in = Files.newInputStream(Path.of(System.getProperty("bulwark.spring.classes"),
                "module-info.class"))) {
            descriptor = ModuleDescriptor.read(in);
        }

        assertThat(descriptor.name()).isEqualTo("dev.bulwark.spring");
        assertThat(descriptor.exports()).extracting(ModuleDescriptor.Exports::source)
                .containsExactly("dev.bulwark.spring");
        assertThat(descriptor.exports()).allMatch(exports -> !exports.isQualified());
        assertThat(descriptor.opens()).allMatch(ModuleDescriptor.Opens::isQualified);
    }
}
