package dev.bulwark.initcheck;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * The bytes of the project's main classes ({@code dev/bulwark/**}) found on a class path, by internal name. Test
 * classes are left out by leaving out the class path entries that hold them (this module's own output directories);
 * the other modules' test jars are not dependencies of this module.
 */
final class ProjectClasses {

    static final String PREFIX = "dev/bulwark/";

    private ProjectClasses() {
    }

    /**
     * The project's main classes on this JVM's class path: every entry but this module's own output directories
     * (its test classes, found where this class was loaded from, and the main classes beside them), so the result
     * does not depend on the working directory.
     */
    static Map<String, byte[]> mainClassesOnClassPath() {
        Path testClasses;
        try {
            testClasses = Path.of(ProjectClasses.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        return read(System.getProperty("java.class.path"), testClasses, testClasses.resolveSibling("classes"));
    }

    /**
     * Reads every project class on {@code classPath} (entries separated by the platform's separator) except those
     * in {@code skipped} entries. The first copy of a class wins, as it would for a class loader: the shaded CLI jar
     * repeats bulwark-core, which comes earlier on this module's class path.
     */
    static Map<String, byte[]> read(String classPath, Path... skipped) {
        Map<String, byte[]> classes = new LinkedHashMap<>();
        entries:
        for (String entry : classPath.split(File.pathSeparator)) {
            if (entry.isEmpty()) {
                continue;
            }
            Path path = Path.of(entry).toAbsolutePath().normalize();
            for (Path skip : skipped) {
                if (path.equals(skip.toAbsolutePath().normalize())) {
                    continue entries;
                }
            }
            if (Files.isDirectory(path)) {
                readDirectory(path, classes);
            } else if (Files.isRegularFile(path) && entry.endsWith(".jar")) {
                readJar(path, classes);
            }
        }
        return classes;
    }

    private static void readDirectory(Path root, Map<String, byte[]> into) {
        Path packageRoot = root.resolve(PREFIX);
        if (!Files.isDirectory(packageRoot)) {
            return;
        }
        try (Stream<Path> files = Files.walk(packageRoot)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String relative = root.relativize(file).toString().replace(File.separatorChar, '/');
                if (isClass(relative)) {
                    into.putIfAbsent(internalName(relative), Files.readAllBytes(file));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void readJar(Path jar, Map<String, byte[]> into) {
        try (JarFile file = new JarFile(jar.toFile())) {
            for (JarEntry entry : (Iterable<JarEntry>) file.stream()::iterator) {
                // Only the base entries: a multi-release jar's META-INF/versions copies are not Bulwark's.
                if (isClass(entry.getName()) && !into.containsKey(internalName(entry.getName()))) {
                    try (InputStream in = file.getInputStream(entry)) {
                        into.put(internalName(entry.getName()), in.readAllBytes());
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean isClass(String relative) {
        return relative.startsWith(PREFIX) && relative.endsWith(".class")
                && !relative.endsWith("module-info.class") && !relative.endsWith("package-info.class");
    }

    private static String internalName(String relative) {
        return relative.substring(0, relative.length() - ".class".length());
    }
}
