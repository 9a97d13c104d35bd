package dev.bulwark.initcheck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.initcheck.InitGraph.Lambdas;
import dev.bulwark.initcheck.fixtures.Hierarchy;
import dev.bulwark.initcheck.fixtures.Indirect;
import dev.bulwark.initcheck.fixtures.Issue37;
import dev.bulwark.initcheck.fixtures.NoCycle;
import dev.bulwark.initcheck.fixtures.Reflective;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What {@link InitGraph} finds on small fixtures ({@code dev.bulwark.initcheck.fixtures}), each scenario read alone:
 * the shape of issue 37, each kind of edge, and the cases it must not report. It keeps {@link StaticInitCycleTest}
 * honest once the project has no cycle left to find.
 */
class InitGraphTest {

    private static final String FIXTURES = "dev/bulwark/initcheck/fixtures/";

    private static Map<String, byte[]> fixtures;

    @BeforeAll
    static void readFixtures() throws Exception {
        Path testClasses = Path.of(Issue37.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        fixtures = ProjectClasses.read(testClasses.toString());
    }

    @Test
    void findsTheCycleOfIssue37AndNamesTheInstructionOfEachEdge() {
        InitGraph graph = graph(Issue37.class, Lambdas.WHERE_CALLED);
        List<List<String>> cycles = graph.cycles();

        assertThat(names(cycles)).containsExactly(List.of("Issue37$Access", "Issue37$Refused"));
        String access = "dev.bulwark.initcheck.fixtures.Issue37$Access";
        String refused = "dev.bulwark.initcheck.fixtures.Issue37$Refused";
        assertThat(graph.describe(cycles))
                .contains("Cycle 1 of 1: " + access + " -> " + refused + " -> " + access)
                .contains(refused + " -> " + access + ": invokestatic " + access + ".install\n"
                        + "      at " + refused + ".<clinit>(Issue37.java:")
                .contains(access + " -> " + refused + ": MethodHandles.Lookup.ensureInitialized(" + refused
                        + ".class)\n      at " + access + ".<clinit>(Issue37.java:");
    }

    @Test
    void aSuperclassAndAnInterfaceWithADefaultMethodAreInitialisedFirst() {
        assertThat(names(graph(Hierarchy.class, Lambdas.WHERE_CALLED).cycles())).containsExactly(
                List.of("Hierarchy$Base", "Hierarchy$Special"),
                List.of("Hierarchy$Circle", "Hierarchy$Shape"));
    }

    @Test
    void followsStaticHelpersOverridesAndLambdasCalledThroughTheirInterface() {
        InitGraph graph = graph(Indirect.class, Lambdas.WHERE_CALLED);

        assertThat(names(graph.cycles())).containsExactly(
                List.of("Indirect$A", "Indirect$B"),
                List.of("Indirect$C", "Indirect$D"),
                List.of("Indirect$E", "Indirect$F"));
        assertThat(graph.edge(FIXTURES + "Indirect$A", FIXTURES + "Indirect$B").stack())
                .extracting(InitGraph.Place::method)
                .containsExactly("read", "<clinit>");
    }

    @Test
    void followsALambdaCalledAtOnceButNotOneOnlyStoredNorANewThreadsBody() {
        assertThat(names(graph(dev.bulwark.initcheck.fixtures.Lambdas.class, Lambdas.WHERE_CALLED).cycles()))
                .containsExactly(List.of("Lambdas$RunNow", "Lambdas$RunNowPeer"));
        // The upper bound reports the two that cannot deadlock as well: what the rule is for.
        assertThat(names(graph(dev.bulwark.initcheck.fixtures.Lambdas.class, Lambdas.ALL).cycles()))
                .containsExactly(
                        List.of("Lambdas$OnThread", "Lambdas$OnThreadPeer"),
                        List.of("Lambdas$RunNow", "Lambdas$RunNowPeer"),
                        List.of("Lambdas$Stored", "Lambdas$StoredPeer"));
    }

    @Test
    void classForNameWithAConstantNameInitialisesUnlessToldNotTo() {
        assertThat(names(graph(Reflective.class, Lambdas.WHERE_CALLED).cycles()))
                .containsExactly(List.of("Reflective$A", "Reflective$B"));
    }

    @Test
    void oneWayUsesSelfUseAndAnonymousSubclassesOnlyTheirEnclosingClassMakesAreNoCycles() {
        InitGraph graph = graph(NoCycle.class, Lambdas.WHERE_CALLED);

        assertThat(graph.cycles()).isEmpty();
        // The enum constant's body is a cycle class by class, merged because only the enum can start it.
        assertThat(graph.edge(FIXTURES + "NoCycle$Operation", FIXTURES + "NoCycle$Operation$1")).isNotNull();
        assertThat(graph.edge(FIXTURES + "NoCycle$Operation$1", FIXTURES + "NoCycle$Operation")).isNotNull();
        assertThat(graph.unitOf(FIXTURES + "NoCycle$Operation$1")).isEqualTo(FIXTURES + "NoCycle$Operation");
        assertThat(graph.unitOf(FIXTURES + "NoCycle$Template$1")).isEqualTo(FIXTURES + "NoCycle$Template");
    }

    /** The graph of one scenario: the top-level fixture class and the classes nested in it. */
    private static InitGraph graph(Class<?> scenario, Lambdas lambdas) {
        String name = FIXTURES + scenario.getSimpleName();
        Map<String, byte[]> classes = fixtures.entrySet().stream()
                .filter(entry -> entry.getKey().equals(name) || entry.getKey().startsWith(name + "$"))
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
        return InitGraph.of(classes, lambdas, InitGraphTest.class.getClassLoader());
    }

    private static List<List<String>> names(List<List<String>> cycles) {
        return cycles.stream()
                .map(cycle -> cycle.stream().map(c -> c.substring(FIXTURES.length())).toList())
                .toList();
    }
}
