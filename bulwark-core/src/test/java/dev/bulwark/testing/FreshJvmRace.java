package dev.bulwark.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Races first uses in fresh JVMs, as the core's {@code FirstUseRace} does, for any module: a child program hands
 * its entry points to {@link #race(List, Duration)}, which runs each on its own thread, all released by one latch,
 * so that their classes are loaded and initialised at the same moment; the parent test runs that child in many
 * fresh JVMs with {@link #assertEveryRoundEnds}. A class-initialisation cycle between two entry points' classes
 * deadlocks some of those JVMs; every hang fails the test with the child's thread dump.
 */
public final class FreshJvmRace {

    private FreshJvmRace() {
    }

    /**
     * In a child: runs every entry point on its own daemon thread, released together, then exits: with 0 and
     * {@code OK} when all finished, 1 (after their stack traces) when any threw, {@link FreshJvm#HUNG} with a thread
     * dump when any is still running after {@code limit}.
     *
     * @param entryPoints the first uses to race, each on its own thread
     * @param limit how long they may take together
     * @throws InterruptedException when interrupted while waiting for them
     */
    public static void race(List<Runnable> entryPoints, Duration limit) throws InterruptedException {
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch finished = new CountDownLatch(entryPoints.size());
        List<Throwable> failures = new ArrayList<>();
        for (int i = 0; i < entryPoints.size(); i++) {
            Runnable entryPoint = entryPoints.get(i);
            Thread thread = new Thread(() -> {
                try {
                    go.await();
                    entryPoint.run();
                } catch (Throwable unexpected) {
                    synchronized (failures) {
                        failures.add(unexpected);
                    }
                } finally {
                    finished.countDown();
                }
            }, "first-use-" + i);
            thread.setDaemon(true);
            thread.start();
        }
        go.countDown();
        if (!finished.await(limit.toMillis(), TimeUnit.MILLISECONDS)) {
            System.out.println("HUNG: " + finished.getCount() + " of " + entryPoints.size() + " callers stuck");
            System.out.println(FreshJvm.threadDump());
            System.out.flush();
            Runtime.getRuntime().halt(FreshJvm.HUNG);
        }
        synchronized (failures) {
            if (!failures.isEmpty()) {
                failures.forEach(Throwable::printStackTrace);
                System.out.flush();
                Runtime.getRuntime().halt(1);
            }
        }
        System.out.println("OK");
        System.out.flush();
    }

    /**
     * In the parent: runs {@code mainClass} in {@code rounds} fresh JVMs, two at a time (the machines this runs on
     * have two cores), and asserts that every one exited with 0, with its output in the failure message.
     *
     * @param mainClass the child program
     * @param rounds how many fresh JVMs
     * @param deadline how long the parent waits for one child before it kills it and reports it hung
     * @param jvmOptions the children's JVM options
     * @param args the children's arguments
     * @throws Exception when a child cannot be run
     */
    public static void assertEveryRoundEnds(Class<?> mainClass, int rounds, Duration deadline, List<String> jvmOptions,
                                            String... args) throws Exception {
        ExecutorService twoAtATime = Executors.newFixedThreadPool(2);
        try {
            List<Future<FreshJvm.Result>> results = new ArrayList<>();
            for (int i = 0; i < rounds; i++) {
                results.add(twoAtATime.submit(() -> FreshJvm.run(mainClass, deadline, jvmOptions, args)));
            }
            for (int i = 0; i < rounds; i++) {
                FreshJvm.Result result = results.get(i).get();
                assertThat(result.exitCode())
                        .as("fresh JVM %d of %d (%s %s) ended with %d:%n%s", i + 1, rounds, mainClass.getSimpleName(),
                                jvmOptions, result.exitCode(), result.output())
                        .isZero();
            }
        } finally {
            twoAtATime.shutdownNow();
        }
    }
}
