/**
 * Coroutine adapters for Bulwark: {@code Bulkhead.call { ... }} suspends instead of blocking.
 *
 * <p>Only {@code dev.bulwark.kotlin} is exported.
 */
module dev.bulwark.kotlin {
    requires transitive dev.bulwark;
    requires transitive kotlin.stdlib;
    requires kotlinx.coroutines.core;

    exports dev.bulwark.kotlin;
}
