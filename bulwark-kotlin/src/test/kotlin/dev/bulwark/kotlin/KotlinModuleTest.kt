package dev.bulwark.kotlin

import java.lang.module.ModuleDescriptor
import java.nio.file.Files
import java.nio.file.Path
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test

/** The module boundary: exactly the adapter package is exported. */
class KotlinModuleTest {

    @Test
    fun exportsExactlyTheAdapterPackage() {
        val descriptor = Files.newInputStream(Path.of("target/classes/module-info.class"))
            .use { ModuleDescriptor.read(it) }

        assertThat(descriptor.name()).isEqualTo("dev.bulwark.kotlin")
        assertThat(descriptor.exports().map { it.source() }).containsExactly("dev.bulwark.kotlin")
        assertThat(descriptor.exports()).allMatch { !it.isQualified }
        assertThat(descriptor.requires().map { it.name() }).contains("dev.bulwark", "kotlinx.coroutines.core")
    }
}
