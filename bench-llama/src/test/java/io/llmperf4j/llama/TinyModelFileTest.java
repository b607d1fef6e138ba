package io.llmperf4j.llama;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Where serve keeps the generated model: a folder only this user can write, never a planted file. */
class TinyModelFileTest {
    private static final String NAME = TinyLlamaModel.fileName(TinyLlamaModel.DEFAULT_SEED);

    @Test
    void theModelGoesIntoAnOwnerOnlyFolderOfTheUser(@TempDir Path tmp) throws IOException {
        Path file = TinyModelFile.privatePath(tmp, "Ada");

        assertEquals(tmp.resolve("llmperf4j-llama-models-ada").resolve(NAME), file);
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent())));
        assertEquals(file, TinyModelFile.privatePath(tmp, "Ada"), "the same place next time, so it is written once");
    }

    @Test
    void aFileAtTheOldSharedPathIsNotUsed(@TempDir Path tmp) throws IOException {
        Files.writeString(tmp.resolve(NAME), "planted by someone else");

        assertNotEquals(tmp.resolve(NAME), TinyModelFile.privatePath(tmp, "ada"));
    }

    @Test
    void aLinkInPlaceOfTheFolderIsNotFollowed(@TempDir Path tmp) throws IOException {
        Path planted = Files.createDirectory(tmp.resolve("planted"));
        Files.writeString(planted.resolve(NAME), "random bytes");
        Files.createSymbolicLink(tmp.resolve("llmperf4j-llama-models-ada"), planted);

        Path file = TinyModelFile.privatePath(tmp, "ada");

        assertFalse(file.startsWith(tmp.resolve("llmperf4j-llama-models-ada")), file::toString);
        assertFalse(file.startsWith(planted), file::toString);
        assertEquals(tmp, file.getParent().getParent());
        assertFalse(Files.exists(file), "a fresh folder, to be written");
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent())));
    }

    @Test
    void anOwnFolderOthersCouldWriteIsMadeOwnerOnly(@TempDir Path tmp) throws IOException {
        Path folder = Files.createDirectory(tmp.resolve("llmperf4j-llama-models-ada"));
        Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwxrwxrwx"));

        assertEquals(folder.resolve(NAME), TinyModelFile.privatePath(tmp, "ada"));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(folder)));
    }

    @Test
    void aMissingTemporaryFolderIsNotCreated(@TempDir Path tmp) {
        Path missing = tmp.resolve("nonexistent-qa");

        NoSuchFileException e = assertThrows(NoSuchFileException.class, () -> TinyModelFile.privatePath(missing, "ada"));
        assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
        assertFalse(Files.exists(missing));
    }
}
