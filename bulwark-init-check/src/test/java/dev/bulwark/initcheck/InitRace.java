package dev.bulwark.initcheck;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The main class of a fresh JVM that {@link InitRaceTest} starts: initialises each given pair of classes from two
 * threads released together, and exits 0 when every thread is done, or, when some are still initialising after the
 * time limit, prints their stacks and exits {@value #HUNG}. A failing initialiser is not a hang: its error is
 * ignored.
 *
 * <p>Arguments: the time limit in milliseconds, then the pairs as {@code first,second} binary class names.
 */
final class InitRace {

    static final int HUNG = 2;
    static final String THREAD_PREFIX = "init-race ";

    private InitRace() {
    }

    public static void main(String[] args) throws InterruptedException {
        long limitMillis = Long.parseLong(args[0]);
        ClassLoader loader = InitRace.class.getClassLoader();
        List<String> names = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            names.addAll(List.of(args[i].split(",")));
        }
        // Loaded (read, not initialised) beforehand, so that the two threads of a pair reach the initialisation
        // itself at the same moment rather than after reading class files of different sizes.
        for (String name : names) {
            try {
                Class.forName(name, false, loader);
            } catch (ClassNotFoundException | LinkageError absent) {
                // An optional dependency missing: that thread fails at once, which is not a hang.
            }
        }
        CountDownLatch ready = new CountDownLatch(names.size());
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (String name : names) {
            Thread thread = new Thread(() -> {
                ready.countDown();
                try {
                    go.await();
                    Class.forName(name, true, loader);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (ClassNotFoundException | LinkageError failed) {
                    // Not a hang.
                }
            }, THREAD_PREFIX + name);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
        ready.await();
        go.countDown();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(limitMillis);
        List<Thread> hung = new ArrayList<>();
        for (Thread thread : threads) {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            if (thread.isAlive()) {
                hung.add(thread);
            }
        }
        if (hung.isEmpty()) {
            System.out.println("initialised " + names.size() + " classes from " + names.size() + " threads");
            System.exit(0);
        }
        StringBuilder dump = new StringBuilder(hung.size() + " of " + names.size()
                + " threads still initialising after " + limitMillis + " ms:\n");
        Map<Thread, StackTraceElement[]> stacks = Thread.getAllStackTraces();
        for (Thread thread : hung) {
            dump.append('"').append(thread.getName()).append("\" ").append(thread.getState()).append('\n');
            for (StackTraceElement frame : stacks.getOrDefault(thread, new StackTraceElement[0])) {
                dump.append("    at ").append(frame).append('\n');
            }
        }
        System.out.print(dump);
        System.out.flush();
        System.exit(HUNG);
    }
}
