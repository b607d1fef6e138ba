package io.llmperf4j.distributed;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The coordinator's CA certificates on a worker: a private file with their very bytes, never a planted one. */
class TrustedCertificatesFileTest {
    private static final String PEM = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUQ\n-----END CERTIFICATE-----\n";
    private static final String OTHER_CA = "-----BEGIN CERTIFICATE-----\nplanted\n-----END CERTIFICATE-----\n";

    @Test
    void theCertificatesGoIntoAnOwnerOnlyFolderOfTheUserOneFilePerContent(@TempDir Path tmp) throws IOException {
        Path file = TrustedCertificatesFile.of(tmp, "Ada", PEM);

        assertEquals(tmp.resolve("llmperf4j-ca-ada"), file.getParent());
        assertEquals(PEM, Files.readString(file));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent())));
        assertEquals(file, TrustedCertificatesFile.of(tmp, "Ada", PEM));
    }

    @Test
    void aFileWithOtherCertificatesUnderTheNameIsRewritten(@TempDir Path tmp) throws IOException {
        Path file = TrustedCertificatesFile.of(tmp, "ada", PEM);
        Files.writeString(file, OTHER_CA);

        assertEquals(file, TrustedCertificatesFile.of(tmp, "ada", PEM));
        assertEquals(PEM, Files.readString(file));
    }

    @Test
    void aLinkInPlaceOfTheFolderIsNotFollowed(@TempDir Path tmp) throws IOException {
        Path planted = Files.createDirectory(tmp.resolve("planted"));
        Files.createSymbolicLink(tmp.resolve("llmperf4j-ca-ada"), planted);

        Path file = TrustedCertificatesFile.of(tmp, "ada", PEM);

        assertFalse(file.startsWith(planted), file::toString);
        assertFalse(file.startsWith(tmp.resolve("llmperf4j-ca-ada")), file::toString);
        assertEquals(tmp, file.getParent().getParent());
        assertEquals(PEM, Files.readString(file));
        try (var files = Files.list(planted)) {
            assertEquals(0, files.count());
        }
    }

    @Test
    void filesNotUsedForADayAreRemovedWhenAnotherIsWritten(@TempDir Path tmp) throws IOException {
        Path stale = TrustedCertificatesFile.of(tmp, "ada", OTHER_CA);
        Path reused = TrustedCertificatesFile.of(tmp, "ada", PEM);
        FileTime twoDaysAgo = FileTime.from(Instant.now().minus(Duration.ofDays(2)));
        Files.setLastModifiedTime(stale, twoDaysAgo);
        Files.setLastModifiedTime(reused, twoDaysAgo);

        assertEquals(reused, TrustedCertificatesFile.of(tmp, "ada", PEM)); // used again: kept, marked as in use
        Path fresh = TrustedCertificatesFile.of(tmp, "ada", PEM.replace("UQ", "UR"));

        assertFalse(Files.exists(stale));
        assertTrue(Files.exists(reused));
        assertTrue(Files.exists(fresh));
    }

    @Test
    void aMissingTemporaryFolderIsNotCreated(@TempDir Path tmp) {
        Path missing = tmp.resolve("nonexistent");

        assertThrows(UncheckedIOException.class, () -> TrustedCertificatesFile.of(missing, "ada", PEM));
        assertFalse(Files.exists(missing));
    }
}
