package dev.bulwark.spring.internal;

import dev.bulwark.spring.BulwarkProperties.BulkheadSettings;
import dev.bulwark.spring.BulwarkProperties.RetrySettings;
import dev.bulwark.spring.BulwarkProperties.TimeoutSettings;
import java.util.Map;
import java.util.Set;
import org.springframework.core.convert.TypeDescriptor;
import org.springframework.core.convert.converter.GenericConverter;

/**
 * Binds a policy declared without settings of its own, a bare {@code reports:} in YAML (which Boot's loader turns
 * into an empty string), to settings that inherit everything: the policy is declared, made at startup from
 * {@code bulwark.defaults} and checked like any other. Without it the binder finds no way to turn the empty string
 * into the settings record and fails with a message about converters. Any other scalar in that place (such as
 * {@code reports: 10}) is refused with the keys that belong there.
 *
 * <p>Only consulted when a value sits at the policy's own key; a map of settings binds as usual. Stateless, so
 * safe from any thread.
 */
public final class BareDeclarationConverter implements GenericConverter {

    private static final Map<Class<?>, String> KEYS = Map.of(
            BulkheadSettings.class, "max-concurrency, max-queue, max-wait",
            RetrySettings.class, "max-retries, delay, backoff-initial, backoff-max, jitter, retry-on",
            TimeoutSettings.class, "duration, interrupt-on-timeout");

    /** Creates the converter; the auto-configuration registers it for property binding. */
    public BareDeclarationConverter() {
    }

    @Override
    public Set<ConvertiblePair> getConvertibleTypes() {
        return Set.of(new ConvertiblePair(Object.class, BulkheadSettings.class),
                new ConvertiblePair(Object.class, RetrySettings.class),
                new ConvertiblePair(Object.class, TimeoutSettings.class));
    }

    @Override
    public Object convert(Object source, TypeDescriptor sourceType, TypeDescriptor targetType) {
        Class<?> target = targetType.getType();
        if (source == null || source instanceof String text && text.isBlank()) {
            if (target == BulkheadSettings.class) {
                return new BulkheadSettings(null, null, null);
            }
            if (target == RetrySettings.class) {
                return new RetrySettings(null, null, null, null, null, null);
            }
            return new TimeoutSettings(null, null);
        }
        throw new IllegalArgumentException("expected a map of settings (" + KEYS.get(target)
                + ") or no value at all (every setting from bulwark.defaults), but was '" + source + "'");
    }
}
