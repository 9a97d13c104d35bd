/**
 * Plain utilities of Bulwark's own modules, none of which knows a bulkhead: {@link
 * dev.bulwark.internal.util.Arguments} (argument checks, worded alike everywhere, and the one conversion of a wait
 * to nanoseconds, 0 meaning no bound), {@link dev.bulwark.internal.util.VarHandles} (a field's handle, found once),
 * {@link dev.bulwark.internal.util.MillisText} (a wait in milliseconds in a message, never {@code 0} for a wait that
 * happened), {@link dev.bulwark.internal.util.Stages} (a user's stage started with one path for every outcome, and
 * a stage's failure as the operation threw it) and Bulwark's one listener fan-out:
 * {@link dev.bulwark.internal.util.ListenerArray} (listeners told in order, each isolated; copy-on-write),
 * {@link dev.bulwark.internal.util.ListenerList} (attachable at run time) and
 * {@link dev.bulwark.internal.util.ListenerFailureLog} (a listener that threw: WARNING once, then DEBUG).
 *
 * <p>Not API: {@code module-info} exports this package only to Bulwark's own modules that use it ({@code
 * dev.bulwark.redis}, {@code dev.bulwark.spring}, {@code dev.bulwark.grpc}, {@code dev.bulwark.http}); it may
 * change in any release.
 */
package dev.bulwark.internal.util;
