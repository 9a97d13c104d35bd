package dev.bulwark.lab;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * The lab's command line: {@code java -jar bulwark-lab.jar overload|slowdown|shedding [--quick] [--out DIR]
 * [--guards a,b,...] [--fixed-by simulator|little] [--slowed-by queries|lock]}. See docs/lab.md.
 */
public final class LabMain {

    private LabMain() {
    }

    /**
     * Runs an experiment and writes its report.
     *
     * @param args {@code overload}, {@code slowdown} or {@code shedding}, then options
     * @throws Exception when the experiment cannot run
     */
    public static void main(String[] args) throws Exception {
        List<String> rest = new ArrayList<>(Arrays.asList(args));
        Scenario scenario = rest.isEmpty() ? null : Arrays.stream(Scenario.values())
                .filter(s -> s.command().equals(rest.get(0))).findFirst().orElse(null);
        if (scenario == null) {
            System.err.println("usage: bulwark-lab overload|slowdown|shedding [--quick] [--out DIR] "
                    + "[--guards none,fixed,selfTuning,resilience4j,springBlock,springReject] "
                    + "[--fixed-by simulator|little] [--slowed-by queries|lock]\n"
                    + "  shedding's --guards: none,shed,priorities (all three by default)");
            System.exit(2);
        }
        rest.remove(0);
        boolean quick = false;
        Path out = Paths.get("bulwark-lab", "target", "lab");
        String guardList = null;
        boolean fixedByLittle = false;
        boolean slowedByLock = false;
        for (int i = 0; i < rest.size(); i++) {
            switch (rest.get(i)) {
                case "--quick" -> quick = true;
                case "--out" -> out = Paths.get(rest.get(++i));
                case "--guards" -> guardList = rest.get(++i);
                case "--fixed-by" -> {
                    String by = rest.get(++i);
                    if (!by.equals("simulator") && !by.equals("little")) {
                        System.err.println("bulwark-lab: --fixed-by: expected simulator or little, got " + by);
                        System.exit(2);
                    }
                    fixedByLittle = by.equals("little");
                }
                case "--slowed-by" -> {
                    String by = rest.get(++i);
                    if (!by.equals("queries") && !by.equals("lock")) {
                        System.err.println("bulwark-lab: --slowed-by: expected queries or lock, got " + by);
                        System.exit(2);
                    }
                    slowedByLock = by.equals("lock");
                }
                default -> {
                    System.err.println("bulwark-lab: unknown option " + rest.get(i));
                    System.exit(2);
                }
            }
        }
        List<GuardMode> guards = List.of();
        List<EdgeMode> edges = List.of();
        if (scenario == Scenario.SHEDDING) {
            edges = guardList == null ? List.of(EdgeMode.values())
                    : parse(guardList, EdgeMode.values(), EdgeMode::label);
        } else {
            guards = guardList != null ? parse(guardList, GuardMode.values(), GuardMode::label)
                    : quick ? List.of(GuardMode.NONE, GuardMode.FIXED, GuardMode.SELF_TUNING)
                    : List.of(GuardMode.values());
        }
        LabExperiment.Result result = new LabExperiment(scenario, quick, guards, edges, fixedByLittle, slowedByLock,
                System.err).run();
        System.out.print(Report.text(result));
        Report.write(result, out);
        System.out.println("\nwrote " + out.resolve(scenario.command() + ".txt") + ", "
                + out.resolve(scenario.command() + ".json") + " and " + out.resolve(scenario.command() + ".html"));
        System.exit(0);
    }

    private static <M> List<M> parse(String list, M[] known, Function<M, String> label) {
        List<M> modes = new ArrayList<>();
        for (String name : list.split(",")) {
            M mode = Arrays.stream(known).filter(m -> label.apply(m).equalsIgnoreCase(name.trim())).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("--guards: unknown guard " + name + " (one of "
                            + Arrays.stream(known).map(label).toList() + ")"));
            modes.add(mode);
        }
        return modes;
    }
}
