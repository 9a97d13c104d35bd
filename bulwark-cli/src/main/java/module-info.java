/**
 * The {@code bulwark} command line: sizes a bulkhead by driving the real {@code dev.bulwark.Bulkhead} against a
 * simulated downstream ({@code bulwark simulate}, {@code bulwark sweep}), and prints the Bulwark equivalent of a
 * Resilience4j configuration ({@code bulwark migrate resilience4j}).
 *
 * <p>Only {@code dev.bulwark.cli} (the entry point) is exported. The command classes are opened to picocli,
 * which fills their annotated fields by reflection.
 */
module dev.bulwark.cli {
    requires dev.bulwark;
    requires info.picocli;
    requires HdrHistogram;
    requires com.fasterxml.jackson.core;
    requires concurrency.limits.core;
    requires org.yaml.snakeyaml;

    exports dev.bulwark.cli;

    opens dev.bulwark.cli.internal to info.picocli;
}
