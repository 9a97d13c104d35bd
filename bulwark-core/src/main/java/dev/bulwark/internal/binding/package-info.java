/**
 * The life cycle of a policy's binding to a metrics back end, written once for the Micrometer and OpenTelemetry
 * modules: {@link dev.bulwark.internal.binding.AttachedListener} (a listener that remembers its own subscription),
 * {@link dev.bulwark.internal.binding.BindingTable} (the policies bound through one binder, by kind and name: the
 * "already bound" check, the replacement of a collected policy's entry, unbinding on close or once the policy is
 * collected), and the binding of every bulkhead of a {@code Bulkheads} registry. Generic over what a back end
 * registers for one policy (Micrometer's meters, OpenTelemetry's callbacks): the back ends keep only that.
 *
 * <p>Not API: {@code module-info} exports this package only to {@code dev.bulwark.micrometer} and
 * {@code dev.bulwark.opentelemetry}; it may change in any release.
 */
package dev.bulwark.internal.binding;
