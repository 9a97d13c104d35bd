package dev.bulwark.spring.internal;

import dev.bulwark.spring.BulwarkProperties.BulkheadSettings;
import dev.bulwark.spring.BulwarkProperties.RetrySettings;
import dev.bulwark.spring.BulwarkProperties.TimeoutSettings;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
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

    /** Per settings type, the settings that inherit everything (its keys are the types converted to). */
    private static final Map<Class<?>, Object> INHERIT_ALL = Map.of(
            BulkheadSettings.class, new BulkheadSettings(null, null, null),
            RetrySettings.class, new RetrySettings(null, null, null, null, null, null),
            TimeoutSettings.class, new TimeoutSettings(null, null));
    /** Per settings type, the keys that belong in its map, for the refusal of any other value. */
    private static final Map<Class<?>, String> KEYS = Map.of(
            BulkheadSettings.class, "max-concurrency, max-queue, max-wait",
            RetrySettings.class, "max-retries, delay, backoff-initial, backoff-max, jitter, retry-on",
            TimeoutSettings.class, "duration, interrupt-on-timeout");

    /** Creates the converter; the auto-configuration registers it for property binding. */
    public BareDeclarationConverter() {
    }

    @Override
    public Set<ConvertiblePair> getConvertibleTypes() {
        return INHERIT_ALL.keySet().stream().map(type -> new ConvertiblePair(Object.class, type))
                .collect(Collectors.toUnmodifiableSet());
    }

    @Override
    public Object convert(Object source, TypeDescriptor sourceType, TypeDescriptor targetType) {
        Class<?> target = targetType.getType();
        if (source == null || source instanceof String text && text.isBlank()) {
            return INHERIT_ALL.get(target);
        }
        throw new IllegalArgumentException("expected a map of settings (" + KEYS.get(target)
                + ") or no value at all (every setting from bulwark.defaults), but was '" + source + "'");
    }
}
