package dev.bulwark.lab;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The lab's command line: {@code java -jar bulwark-lab.jar overload|slowdown [--quick] [--out DIR]
 * [--guards a,b,...] [--fixed-by simulator|little]}. See docs/lab.md.
 */
public final class LabMain {

    private LabMain() {
    }

    /**
     * Runs an experiment and writes its report.
     *
     * @param args {@code overload} or {@code slowdown}, then options
     * @throws Exception when the experiment cannot run
     */
    public static void main(String[] args) throws Exception {
        List<String> rest = new ArrayList<>(Arrays.asList(args));
        Scenario scenario = rest.isEmpty() ? null : Arrays.stream(Scenario.values())
                .filter(s -> s.command().equals(rest.get(0))).findFirst().orElse(null);
        if (scenario == null) {
            System.err.println("usage: bulwark-lab overload|slowdown [--quick] [--out DIR] "
                    + "[--guards none,fixed,selfTuning,resilience4j,springBlock,springReject] "
                    + "[--fixed-by simulator|little]");
            System.exit(2);
        }
        rest.remove(0);
        boolean quick = false;
        Path out = Paths.get("bulwark-lab", "target", "lab");
        List<GuardMode> guards = null;
        boolean fixedByLittle = false;
        for (int i = 0; i < rest.size(); i++) {
            switch (rest.get(i)) {
                case "--quick" -> quick = true;
                case "--out" -> out = Paths.get(rest.get(++i));
                case "--guards" -> guards = parseGuards(rest.get(++i));
                case "--fixed-by" -> {
                    String by = rest.get(++i);
                    if (!by.equals("simulator") && !by.equals("little")) {
                        System.err.println("bulwark-lab: --fixed-by: expected simulator or little, got " + by);
                        System.exit(2);
                    }
                    fixedByLittle = by.equals("little");
                }
                default -> {
                    System.err.println("bulwark-lab: unknown option " + rest.get(i));
                    System.exit(2);
                }
            }
        }
        if (guards == null) {
            guards = quick ? List.of(GuardMode.NONE, GuardMode.FIXED, GuardMode.SELF_TUNING)
                    : List.of(GuardMode.values());
        }
        LabExperiment.Result result = new LabExperiment(scenario, quick, guards, fixedByLittle, System.err).run();
        System.out.print(Report.text(result));
        Report.write(result, out);
        System.out.println("\nwrote " + out.resolve(scenario.command() + ".txt") + " and "
                + out.resolve(scenario.command() + ".json"));
        System.exit(0);
    }

    private static List<GuardMode> parseGuards(String list) {
        List<GuardMode> modes = new ArrayList<>();
        for (String name : list.split(",")) {
            GuardMode mode = Arrays.stream(GuardMode.values()).filter(m -> m.label().equalsIgnoreCase(name.trim()))
                    .findFirst().orElseThrow(() -> new IllegalArgumentException("--guards: unknown guard " + name));
            modes.add(mode);
        }
        return modes;
    }
}
