package dev.bulwark.benchmarks.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** Describes the machine the report runs on, which the run script makes the machine the benchmarks ran on. */
final class MachineProbe {

    private MachineProbe() {
    }

    static ResultsFile.Machine probe() {
        return new ResultsFile.Machine(cpuModel(), Runtime.getRuntime().availableProcessors(), memory(),
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                        + System.getProperty("os.arch"));
    }

    private static String cpuModel() {
        for (String line : lines("/proc/cpuinfo")) {
            if (line.startsWith("model name")) {
                return line.substring(line.indexOf(':') + 1).trim();
            }
        }
        return "unknown processor";
    }

    private static String memory() {
        for (String line : lines("/proc/meminfo")) {
            if (line.startsWith("MemTotal:")) {
                String[] parts = line.trim().split("\\s+");
                double gibibytes = Long.parseLong(parts[1]) / (1024.0 * 1024.0);
                return String.format(Locale.ROOT, "%.0f GiB", gibibytes);
            }
        }
        return "unknown memory";
    }

    private static List<String> lines(String file) {
        try {
            return Files.readAllLines(Path.of(file));
        } catch (IOException | RuntimeException unreadable) {
            return List.of();
        }
    }
}
