package dev.bulwark.kotlin

import dev.bulwark.Bulkhead
import dev.bulwark.Fallback
import dev.bulwark.ThrowingSupplier
import kotlin.reflect.KType
import kotlin.reflect.typeOf
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test

/**
 * Issue 10: the core reads naturally from Kotlin. Its JSpecify annotations make Kotlin see `String`, not the platform
 * type `String!`, so the compiler checks nulls at the boundary. [staticType] captures the type the compiler inferred.
 */
class NullnessFromKotlinTest {

    private inline fun <reified T> staticType(@Suppress("UNUSED_PARAMETER") value: T): KType = typeOf<T>()

    @Test
    fun returnTypesOfTheCoreAreNonNull() {
        val bulkhead = Bulkhead.builder().name("kotlin").build()

        assertThat(staticType(bulkhead.name()).toString()).isEqualTo("kotlin.String")
        assertThat(staticType(bulkhead.maxWait()).isMarkedNullable).isFalse()
        // For comparison: a Java API without annotations gives a platform type.
        assertThat(staticType(System.getProperty("user.dir")).toString()).isEqualTo("kotlin.String!")
    }

    @Test
    fun aCallReturnsTheNullabilityOfItsOperation() {
        val bulkhead = Bulkhead.of(2)

        val value = bulkhead.call(ThrowingSupplier<String, RuntimeException> { "value" })
        val maybe = bulkhead.call(ThrowingSupplier<String?, RuntimeException> { null })

        assertThat(staticType(value).toString()).isEqualTo("kotlin.String")
        assertThat(staticType(maybe).toString()).isEqualTo("kotlin.String?")
        assertThat(value.length).isEqualTo(5)
        assertThat(maybe).isNull()
    }

    @Test
    fun nullIsAcceptedExactlyWhereTheApiAllowsIt() {
        val bulkhead = Bulkhead.builder().maxWait(java.time.Duration.ofSeconds(1)).build()

        bulkhead.changeMaxWait(null)
        val unknown: Fallback<String?> = Fallback.of(null)

        assertThat(bulkhead.maxWait()).isEmpty()
        assertThat(unknown.call(ThrowingSupplier<String?, RuntimeException> { throw IllegalStateException() }))
            .isNull()
    }
}
