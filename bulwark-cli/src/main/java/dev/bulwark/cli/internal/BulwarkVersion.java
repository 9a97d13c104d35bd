package dev.bulwark.cli.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/** Supplies {@code --version}: the build's version (filled in by Maven) and the running JDK. */
final class BulwarkVersion implements IVersionProvider {

    @Override
    public String[] getVersion() {
        return new String[] {"bulwark " + version(), "Java " + Runtime.version() + " (" + System.getProperty(
                "java.vendor") + ")"};
    }

    static String version() {
        Properties properties = new Properties();
        try (InputStream in = BulwarkVersion.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                return "unknown";
            }
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return properties.getProperty("version", "unknown");
    }
}
