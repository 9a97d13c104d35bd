package dev.bulwark.internal.bulkhead;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The in-process bulkhead package's boundary: only its entry types are public, and nothing below the bulkhead (the
 * waiters, the queue, the permit, the grant dispatch, the events) names {@link InProcessBulkhead}: they reach it
 * through {@link Waiter.Room} and {@link LocalPermit.Slots}, so no call runs back up into it. Read from the compiled
 * classes, whose constant pools name every class they use.
 */
class BulkheadPackageTest {

    private static final Path PACKAGE = Path.of("target/classes/dev/bulwark/internal/bulkhead");
    private static final String BULKHEAD = "dev/bulwark/internal/bulkhead/InProcessBulkhead";

    private static List<Path> classFiles() throws IOException {
        try (Stream<Path> files = Files.list(PACKAGE)) {
            return files.filter(f -> f.toString().endsWith(".class")).sorted().collect(Collectors.toList());
        }
    }

    @Test
    void onlyTheEntryTypesArePublic() throws Exception {
        List<String> publicTypes = classFiles().stream().map(f -> f.getFileName().toString())
                .filter(name -> !name.contains("$"))
                .map(name -> name.substring(0, name.length() - ".class".length()))
                .filter(BulkheadPackageTest::isPublic).collect(Collectors.toList());

        // FlightRecorderEvents for FirstUse's prepare(); PumpAcquire for the fair-share pump.
        assertThat(publicTypes).containsExactlyInAnyOrder("InProcessBulkhead", "PumpAcquire",
                "FlightRecorderEvents");
    }

    @Test
    void nothingBelowTheBulkheadNamesIt() throws Exception {
        List<Path> below = classFiles().stream()
                .filter(f -> !f.getFileName().toString().startsWith("InProcessBulkhead")
                        && !f.getFileName().toString().startsWith("PumpAcquire"))
                .collect(Collectors.toList());
        assertThat(below).extracting(f -> f.getFileName().toString())
                .contains("Waiter.class", "Waiter$Sync.class", "Waiter$Async.class", "Waiter$Async$ForCall.class",
                        "Waiter$Async$ForPermit.class", "LocalPermit.class", "SlotQueue.class",
                        "SlotQueue$WaiterQueue.class", "GrantDispatch.class");
        for (Path file : below) {
            // Class names sit in the constant pool as modified UTF-8, which is ASCII for these names.
            String pool = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
            assertThat(pool).as("%s names the bulkhead that makes it", file.getFileName()).doesNotContain(BULKHEAD);
        }
    }

    private static boolean isPublic(String simpleName) {
        try {
            Class<?> type = Class.forName(BulkheadPackageTest.class.getPackageName() + "." + simpleName);
            return Modifier.isPublic(type.getModifiers());
        } catch (ClassNotFoundException e) {
            throw new AssertionError(e);
        }
    }
}
