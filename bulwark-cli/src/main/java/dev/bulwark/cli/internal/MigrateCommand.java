package dev.bulwark.cli.internal;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code bulwark migrate}: turns another library's configuration into Bulwark's; the work is the subcommands'. */
@Command(name = "migrate", mixinStandardHelpOptions = true, versionProvider = BulwarkVersion.class,
        usageHelpAutoWidth = true,
        description = {"Prints the bulwark.* Spring Boot configuration equivalent to another library's.", ""},
        subcommands = {MigrateResilience4jCommand.class},
        footer = {"", "Run 'bulwark migrate resilience4j --help' for the options."})
final class MigrateCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        throw new ParameterException(spec.commandLine(), "missing command: resilience4j");
    }
}
