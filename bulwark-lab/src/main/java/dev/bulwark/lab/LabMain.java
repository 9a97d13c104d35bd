package dev.bulwark.lab;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * The lab's command line: {@code java -jar bulwark-lab.jar overload|slowdown|shedding|remote [--quick] [--out DIR]
 * [--guards a,b,...] [--fixed-by simulator|little] [--slowed-by queries|lock]}. See docs/lab.md.
 */
public final class LabMain {

    private LabMain() {
    }

    /**
     * Runs an experiment and writes its report.
     *
     * @param args {@code overload}, {@code slowdown}, {@code shedding} or {@code remote}, then options
     * @throws Exception when the experiment cannot run
     */
    public static void main(String[] args) throws Exception {
        List<String> rest = new ArrayList<>(Arrays.asList(args));
        Scenario scenario = rest.isEmpty() ? null : Arrays.stream(Scenario.values())
                .filter(s -> s.command().equals(rest.get(0))).findFirst().orElse(null);
        if (scenario == null) {
            System.err.println("usage: bulwark-lab overload|slowdown|shedding|remote [--quick] [--out DIR] "
                    + "[--guards none,fixed,selfTuning,resilience4j,springBlock,springReject] "
                    + "[--fixed-by simulator|little] [--slowed-by queries|lock]\n"
                    + "  shedding's --guards: none,shed,priorities,priorities429 (all four by default)");
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
                case "--fixed-by" -> fixedByLittle = isSecond("--fixed-by", rest.get(++i), "simulator", "little");
                case "--slowed-by" -> slowedByLock = isSecond("--slowed-by", rest.get(++i), "queries", "lock");
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

    /**
     * Reads a two-way option: whether {@code value} is {@code second}. Exits with status 2 and a message naming the
     * option when it is neither choice.
     */
    private static boolean isSecond(String option, String value, String first, String second) {
        if (!value.equals(first) && !value.equals(second)) {
            System.err.println("bulwark-lab: " + option + ": expected " + first + " or " + second + ", got " + value);
            System.exit(2);
        }
        return value.equals(second);
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
