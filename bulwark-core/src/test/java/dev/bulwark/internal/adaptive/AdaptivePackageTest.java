package dev.bulwark.internal.adaptive;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.MatchResult;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The adaptive package's boundary: the limiter's type ({@link AdaptiveLimiter}) and its factory
 * ({@link AdaptiveLimiters}) public, for the in-process and Redis bulkheads, everything else package-private; and no
 * class of the package names a class of {@code dev.bulwark.internal}, so a limiter never calls back up into the
 * bulkhead (it moves the limit through {@code spi.AdaptiveTarget}). Read from the compiled classes, whose constant
 * pools name every class they use.
 */
class AdaptivePackageTest {

    private static final Path PACKAGE = Path.of("target/classes/dev/bulwark/internal/adaptive");
    /** A class of {@code dev.bulwark.internal} itself, not of a subpackage, in a class file's constant pool. */
    private static final Pattern BULKHEAD_PACKAGE_CLASS = Pattern.compile("dev/bulwark/internal/[A-Z][\\w$]*");

    private static List<Path> classFiles() throws IOException {
        try (Stream<Path> files = Files.list(PACKAGE)) {
            return files.filter(f -> f.toString().endsWith(".class")).sorted().collect(Collectors.toList());
        }
    }

    @Test
    void onlyTheEntryTypesArePublic() throws Exception {
        List<String> publicTypes = classFiles().stream().map(f -> f.getFileName().toString())
                .filter(name -> !name.contains("$") && !name.equals("package-info.class"))
                .map(name -> name.substring(0, name.length() - ".class".length()))
                .filter(AdaptivePackageTest::isPublic).collect(Collectors.toList());

        assertThat(publicTypes).containsExactlyInAnyOrder("AdaptiveLimiter", "AdaptiveLimiters");
    }

    @Test
    void namesNoClassOfTheBulkheadPackage() throws Exception {
        List<Path> files = classFiles();
        assertThat(files).hasSizeGreaterThanOrEqualTo(8);
        for (Path file : files) {
            // Class names sit in the constant pool as modified UTF-8, which is ASCII for these names.
            String pool = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
            List<String> named = BULKHEAD_PACKAGE_CLASS.matcher(pool).results().map(MatchResult::group)
                    .collect(Collectors.toList());
            assertThat(named).as("classes of dev.bulwark.internal named by %s", file.getFileName()).isEmpty();
        }
    }

    private static boolean isPublic(String simpleName) {
        try {
            Class<?> type = Class.forName(AdaptivePackageTest.class.getPackageName() + "." + simpleName);
            return Modifier.isPublic(type.getModifiers());
        } catch (ClassNotFoundException e) {
            throw new AssertionError(e);
        }
    }
}
