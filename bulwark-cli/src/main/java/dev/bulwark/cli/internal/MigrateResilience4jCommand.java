package dev.bulwark.cli.internal;

import dev.bulwark.cli.internal.migrate.BadConfigException;
import dev.bulwark.cli.internal.migrate.BulwarkConfigWriter;
import dev.bulwark.cli.internal.migrate.ConfigFileReader;
import dev.bulwark.cli.internal.migrate.Format;
import dev.bulwark.cli.internal.migrate.Resilience4jMigration;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code bulwark migrate resilience4j FILE}: prints the bulwark.* equivalent of a file's resilience4j.* settings. */
@Command(name = "resilience4j", mixinStandardHelpOptions = true, versionProvider = BulwarkVersion.class,
        usageHelpAutoWidth = true,
        description = {
            "Reads the resilience4j.* settings of a Spring Boot application.yml or application.properties and prints "
                    + "the equivalent bulwark.* settings on standard output, in the same format: the bulkhead "
                    + "(semaphore), thread-pool-bulkhead, retry and timelimiter sections, each instance resolved "
                    + "through its baseConfig and configs.default as Resilience4j resolves it. What a name that is "
                    + "not declared gets (configs.default, or Resilience4j's own defaults) becomes bulwark.defaults.",
            "",
            "Each setting that could not be carried over exactly gets a comment line saying why, with its line in "
                    + "the file. Other sections (circuitbreaker, ratelimiter, ...) are noted and left out; keys "
                    + "outside resilience4j are not read.",
            ""},
        footer = {"", "Examples:",
            "  bulwark migrate resilience4j src/main/resources/application.yml",
            "  bulwark migrate resilience4j application.properties > bulwark.properties", "",
            "Exit codes: 0 migrated (notes included), 2 bad input: a file that is missing, not readable, not YAML or "
                    + "properties, or has a value Resilience4j itself refuses (the message names the file and line).",
            "See docs/migrating-from-resilience4j.md for every property and annotation."})
final class MigrateResilience4jCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE",
            description = "The application.yml (or .yaml) or application.properties to migrate; its extension "
                    + "tells the format.")
    Path file;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        String name = file.toString();
        try {
            Format format = Format.of(name).orElseThrow(() -> new BadConfigException(name, 0,
                    "unknown format: expected a .yml, .yaml or .properties file"));
            String text;
            try {
                text = new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
            } catch (NoSuchFileException missing) {
                throw new BadConfigException(name, 0, "no such file");
            } catch (IOException unreadable) {
                throw new BadConfigException(name, 0, "cannot be read: " + unreadable.getMessage());
            }
            Resilience4jMigration.Result result = Resilience4jMigration.migrate(name,
                    ConfigFileReader.read(name, text, format));
            out.print(BulwarkConfigWriter.write(result, format, file.getFileName().toString()));
            out.flush();
            return 0;
        } catch (BadConfigException bad) {
            err.println(spec.qualifiedName() + ": " + bad.getMessage());
            err.flush();
            return spec.exitCodeOnInvalidInput();
        }
    }
}
