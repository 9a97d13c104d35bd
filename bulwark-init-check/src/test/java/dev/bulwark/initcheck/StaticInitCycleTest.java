package dev.bulwark.initcheck;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * No static initialiser of any Bulwark module may wait, directly or through other classes, for a class whose
 * initialisation waits back for it (issue 37). Two threads that start such a cycle from different classes each hold
 * one class's initialisation and wait for the other's for ever; the JVM neither detects nor times this out, and it
 * happens only on the first use in a fresh JVM, under concurrency, which is when a bulkhead is hit hardest.
 *
 * <p>The check reads the bytecode of the main classes of every module with main classes (the root POM's modules
 * but {@code bulwark-benchmarks} and {@code bulwark-lab}, tools whose classes never run in a user's JVM), as this
 * module's test class path holds them, builds the graph {@link InitGraph} describes, and fails on every strongly
 * connected component of two or more classes, naming each cycle and, for each of its edges, the instruction and the
 * call chain from the static initialiser that make it. {@link #everyModuleWithMainClassesIsRead()} keeps the set
 * of modules complete, and {@link InitGraphTest} shows on small fixtures, among them the shape of issue 37, that the
 * analysis finds what it must and only that.
 *
 * <p>Known limits: it cannot see
 * <ul>
 *   <li>initialisation triggered by reflection on a name or class computed at run time ({@code Class.forName(s)},
 *       {@code Class.newInstance}, {@code Method.invoke}, a {@code MethodHandle} found by lookup), by a
 *       {@code ServiceLoader}, or by a JDK or library method that calls back into project code other than through
 *       a lambda the analysis follows;</li>
 *   <li>user code and other libraries: a user's class whose initialiser uses Bulwark while a Bulwark initialiser
 *       calls the user's code (through a listener, say) is outside the graph;</li>
 *   <li>cycles through a class of another library (a Bulwark class, a Reactor class, and back);</li>
 *   <li>waits that are not class initialisation: a static initialiser that joins a thread or takes a lock that
 *       a thread initialising another class holds;</li>
 *   <li>what starts an anonymous or local class's initialisation other than its enclosing class's code (such a
 *       class is merged into its enclosing class): deserialisation, or an instance of the enclosing class that its
 *       initialiser publishes before it ends.</li>
 * </ul>
 * It over-approximates elsewhere (every branch, every override a virtual call could reach, lambdas made in an
 * initialiser), so a reported cycle may be impossible at run time; {@code InitRaceTest} races the classes of a
 * reported cycle in fresh JVMs, and the way out of a false report is a simpler initialiser, not an exception list.
 */
class StaticInitCycleTest {

    /** Modules whose main classes are not checked: tools whose code never runs in a user's JVM. */
    private static final List<String> NOT_CHECKED = List.of("bulwark-benchmarks", "bulwark-lab");

    private static Map<String, byte[]> classes;
    private static InitGraph graph;

    @BeforeAll
    static void readEveryModule() {
        classes = ProjectClasses.mainClassesOnClassPath();
        graph = InitGraph.of(classes, InitGraph.Lambdas.WHERE_CALLED,
                StaticInitCycleTest.class.getClassLoader());
    }

    @Test
    void noStaticInitialiserWaitsForAClassWhoseInitialiserWaitsBack() {
        List<List<String>> cycles = graph.cycles();
        assertThat(cycles)
                .withFailMessage(() -> cycles.size() + " static-initialisation cycle(s) among " + classes.size()
                        + " classes: two threads that initialise two classes of a cycle from different ends, at the "
                        + "same time, deadlock for ever. Break each cycle: no static initialiser may depend on a "
                        + "class whose initialisation depends back on it (move the state into a holder class that "
                        + "depends on nothing, or make it lazy)." + graph.describe(cycles))
                .isEmpty();
    }

    @Test
    void everyModuleWithMainClassesIsRead() throws IOException {
        Path root = Path.of(System.getProperty("bulwark.root.pom")).getParent();
        List<String> missing = new ArrayList<>();
        int modules = 0;
        for (String module : modules(root)) {
            Path main = root.resolve(module).resolve("src/main");
            if (NOT_CHECKED.contains(module) || !Files.isDirectory(main)) {
                continue;
            }
            modules++;
            missing.addAll(sourcesNotRead(module, main.resolve("java"), ".java"));
            missing.addAll(sourcesNotRead(module, main.resolve("kotlin"), ".kt"));
        }
        assertThat(modules).as("modules with main classes").isGreaterThanOrEqualTo(10);
        assertThat(missing)
                .as("source files whose classes are not on this module's test class path: add the module to "
                        + "bulwark-init-check/pom.xml")
                .isEmpty();
    }

    /** The source files under {@code dir} that compile to no class read (Kotlin: {@code Name} or {@code NameKt}). */
    private static List<String> sourcesNotRead(String module, Path dir, String suffix) throws IOException {
        List<String> missing = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return missing;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String relative = dir.relativize(file).toString().replace('\\', '/');
                if (!relative.endsWith(suffix) || relative.endsWith("module-info.java")
                        || relative.endsWith("package-info.java")) {
                    continue;
                }
                String name = relative.substring(0, relative.length() - suffix.length());
                if (!classes.containsKey(name) && !classes.containsKey(name + "Kt")) {
                    missing.add(module + ": " + relative);
                }
            }
        }
        return missing;
    }

    private static List<String> modules(Path root) throws IOException {
        String pom = Files.readString(root.resolve("pom.xml"));
        List<String> modules = new ArrayList<>();
        Matcher matcher = Pattern.compile("<module>([^<]+)</module>").matcher(pom);
        while (matcher.find()) {
            modules.add(matcher.group(1).trim());
        }
        return modules;
    }
}
