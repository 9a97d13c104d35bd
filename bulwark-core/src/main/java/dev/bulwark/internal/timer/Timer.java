package dev.bulwark.internal.timer;

import dev.bulwark.Scheduler;

/**
 * A timer of {@link TimerWheel#schedule}: a node that runs a task. The task is dropped (set to {@code null}) by
 * whoever decides the state, so a decided timer holds nothing.
 */
final class Timer extends TimerNode implements Scheduler.Cancellable {

    private Runnable task;

    Timer(TimerWheel wheel, Runnable task, long deadline) {
        super(wheel, deadline);
        this.task = task;
    }

    @Override
    protected void expire() {
        Runnable toRun = task;
        task = null;
        toRun.run();
    }

    @Override
    protected void cancelled() {
        task = null;
    }

    @Override
    public void cancel() {
        tryCancel();
    }
}
