/**
 * Bulwark's public API: policies (bulkhead, retry, timeout, pipeline), fallback, listeners and the registry.
 *
 * <p>Every type in this package is null-marked (JSpecify): a parameter, return value or type argument is never
 * {@code null} unless it is annotated {@link org.jspecify.annotations.Nullable @Nullable}. The annotations are for
 * tools and for Kotlin, which sees these types as non-null; they are not needed at run time.
 */
@NullMarked
package dev.bulwark;

import org.jspecify.annotations.NullMarked;
