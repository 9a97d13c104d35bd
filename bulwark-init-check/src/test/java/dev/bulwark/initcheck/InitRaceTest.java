package dev.bulwark.initcheck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.initcheck.fixtures.Issue37;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The dynamic side of {@link StaticInitCycleTest}: initialises classes from two threads at once in fresh JVMs
 * ({@link InitRace}) and fails on a hang, with the stacks of the threads that hang. It races every pair of classes
 * that the static graph links by an edge (either way), which are the pairs a cycle the analysis cannot see
 * (reflection by a computed name, a library calling back) would deadlock, in JVMs of disjoint pairs; and the
 * classes of each cycle the static check reports, {@value #CYCLE_RUNS} times, as such a race hangs only now and
 * then. A race that does not hang proves nothing; one that hangs is a deadlock for certain.
 *
 * <p>Limits: two threads per pair, released by a latch after the classes are loaded, so a cycle whose window is a
 * few instructions wide is caught only sometimes (issue 37's own race hung in about one fresh JVM in three with
 * eight threads); a cycle among three classes or more is raced only pair by pair. The grouping of pairs into JVMs
 * follows {@code -Dbulwark.initrace.seed} (default 37); every pair is raced in every run.
 */
class InitRaceTest {

    /**
     * How long a thread may take to initialise its class before it counts as hung: far above the sub-second a
     * round takes, so a loaded machine is not taken for a hang; a green run never waits for it.
     */
    private static final long LIMIT_MILLIS = 10_000;
    /** Fresh JVMs per reported cycle: a hang there is likely, not certain. */
    private static final int CYCLE_RUNS = 10;

    @Test
    void racingBothEndsOfTheShapeOfIssue37HangsAndIsReportedWithTheStacks() throws Exception {
        // The fixture pauses inside both initialisers, so the two threads always cross: this checks the harness.
        Race race = race(List.of(List.of(Issue37.Refused.class.getName(), Issue37.Access.class.getName())),
                "-Dbulwark.fixture.pause.millis=300", 2_000);

        assertThat(race.exitCode).as(race.output).isEqualTo(InitRace.HUNG);
        assertThat(race.output)
                .contains("2 of 2 threads still initialising")
                .contains("\"init-race dev.bulwark.initcheck.fixtures.Issue37$Refused\"")
                .contains("\"init-race dev.bulwark.initcheck.fixtures.Issue37$Access\"")
                .contains("dev.bulwark.initcheck.fixtures.Issue37$Refused.<clinit>(Issue37.java:")
                .contains("dev.bulwark.initcheck.fixtures.Issue37$Access.<clinit>(Issue37.java:");
    }

    @Test
    void noTwoClassesThatTheStaticGraphLinksDeadlockWhenInitialisedFromBothEndsAtOnce() throws Exception {
        InitGraph graph = InitGraph.of(ProjectClasses.mainClassesOnClassPath(), InitGraph.Lambdas.WHERE_CALLED,
                getClass().getClassLoader());
        Set<List<String>> linked = new LinkedHashSet<>();
        for (String from : graph.classes()) {
            for (InitGraph.Edge edge : graph.edgesFrom(from)) {
                List<String> pair = new ArrayList<>(List.of(binary(from), binary(edge.to())));
                Collections.sort(pair);
                linked.add(pair);
            }
        }
        List<String> hangs = new ArrayList<>();
        int jvms = 0;
        for (List<List<String>> round : disjointRounds(new ArrayList<>(linked),
                new Random(Long.getLong("bulwark.initrace.seed", 37)))) {
            jvms++;
            Race race = race(round, null, LIMIT_MILLIS);
            if (race.exitCode != 0) {
                hangs.add("pairs " + round + ":\n" + race.output);
            }
        }
        for (List<String> component : graph.cycles()) {
            List<String> cycle = graph.shortestCycle(component);
            Set<List<String>> pairs = new LinkedHashSet<>();
            for (int i = 0; i < cycle.size(); i++) {
                List<String> pair = new ArrayList<>(List.of(binary(cycle.get(i)),
                        binary(cycle.get((i + 1) % cycle.size()))));
                Collections.sort(pair);
                pairs.add(pair);
            }
            for (List<List<String>> round : disjointRounds(new ArrayList<>(pairs), new Random(37))) {
                for (int run = 0; run < CYCLE_RUNS; run++) {
                    jvms++;
                    Race race = race(round, null, LIMIT_MILLIS);
                    if (race.exitCode != 0) {
                        hangs.add("cycle " + round + ", run " + (run + 1) + ":\n" + race.output);
                        break;
                    }
                }
            }
        }

        assertThat(hangs)
                .as("%d pairs of linked classes raced in %d fresh JVMs; hangs", linked.size(), jvms)
                .isEmpty();
    }

    /** Groups pairs into rounds in which no class is in two pairs: one JVM initialises a class once. */
    private static List<List<List<String>>> disjointRounds(List<List<String>> pairs, Random random) {
        List<List<String>> left = new ArrayList<>(pairs);
        Collections.shuffle(left, random);
        List<List<List<String>>> rounds = new ArrayList<>();
        while (!left.isEmpty()) {
            List<List<String>> round = new ArrayList<>();
            Set<String> taken = new HashSet<>();
            for (var it = left.iterator(); it.hasNext(); ) {
                List<String> pair = it.next();
                if (!taken.contains(pair.get(0)) && !taken.contains(pair.get(1))) {
                    taken.addAll(pair);
                    round.add(pair);
                    it.remove();
                }
            }
            rounds.add(round);
        }
        return rounds;
    }

    private record Race(int exitCode, String output) {
    }

    /** Runs {@link InitRace} on the pairs in a fresh JVM with this test's class path; kills it if it overruns. */
    private static Race race(List<List<String>> pairs, String option, long limitMillis)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // Only the initialisers run, once: the interpreter and C1 start soonest.
                "-XX:TieredStopAtLevel=1", "-Xshare:auto"));
        if (option != null) {
            command.add(option);
        }
        command.add(InitRace.class.getName());
        command.add(Long.toString(limitMillis));
        for (List<String> pair : pairs) {
            command.add(String.join(",", pair));
        }
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        // The class path goes through the environment: it is longer than some systems allow on a command line.
        builder.environment().put("CLASSPATH", System.getProperty("java.class.path"));
        Process process = builder.start();
        CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "(output unreadable: " + e + ")";
            }
        });
        if (!process.waitFor(limitMillis + 30_000, TimeUnit.MILLISECONDS)) {
            process.destroyForcibly().waitFor();
            return new Race(-1, "the JVM did not end on its own, killed:\n" + output.join());
        }
        return new Race(process.exitValue(), output.join());
    }

    private static String binary(String internalName) {
        return internalName.replace('/', '.');
    }
}
