package dev.bulwark.micrometer.internal;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The meters one binding registered, so that unbinding removes exactly those instances. Thread-safe.
 *
 * <p>Removal is by identity: if a later binding of the same name has since registered a meter with the same id (after
 * this one's policy was collected), that newer meter is left alone.
 */
public final class MeterGroup {

    private final MeterRegistry registry;
    private final List<Meter> meters = new CopyOnWriteArrayList<>();
    /** What else the binding published outside the registry's meters (its Prometheus histograms). */
    private final List<Runnable> removals = new CopyOnWriteArrayList<>();

    /**
     * Creates an empty group.
     *
     * @param registry where the meters are registered
     */
    public MeterGroup(MeterRegistry registry) {
        this.registry = registry;
    }

    /**
     * Returns the registry the meters are registered in.
     *
     * @return the registry
     */
    public MeterRegistry registry() {
        return registry;
    }

    /**
     * Remembers a meter just registered.
     *
     * @param meter the meter as returned by its builder's {@code register}
     * @param <M> the meter type
     * @return {@code meter}
     */
    public <M extends Meter> M add(M meter) {
        meters.add(meter);
        return meter;
    }

    /**
     * Remembers how to remove something the binding published beside its meters.
     *
     * @param removal run once, by {@link #removeAll()}
     */
    void onRemoval(Runnable removal) {
        removals.add(removal);
    }

    /**
     * Removes every remembered meter that is still registered (the very instance) and whatever was published beside
     * them, and forgets them all.
     */
    public void removeAll() {
        for (Runnable removal : removals) {
            removal.run();
        }
        removals.clear();
        for (Meter meter : meters) {
            if (isRegistered(meter)) {
                registry.remove(meter);
            }
        }
        meters.clear();
    }

    private boolean isRegistered(Meter meter) {
        // Meter.equals compares ids; only the very instance may be removed, never a successor with the same id.
        for (Meter candidate : registry.find(meter.getId().getName()).meters()) {
            if (candidate == meter) {
                return true;
            }
        }
        return false;
    }
}
