package dev.tally.gateway.http;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KeysFileTest
{
    @TempDir
    Path dir;

    @Test
    void shouldStoreOnlyTheHashOfAnAddedKeyInAnOwnerOnlyFile() throws IOException
    {
        final Path file = dir.resolve("keys");
        final KeysFile.NewKey added = KeysFile.add(file, "acme", new SecureRandom());
        final String text = Files.readString(file);
        assertFalse(text.contains(added.key()), "the file never holds the key");
        assertTrue(text.contains(added.line()));
        assertTrue(added.key().length() >= 43, "256 random bits");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));

        final List<KeysFile.Line> lines = KeysFile.read(file);
        assertEquals(1, lines.size());
        assertEquals("acme", lines.get(0).tenant());
        assertEquals(added.keyId(), lines.get(0).keyId());
    }

    @Test
    void shouldAuthenticateFileKeysAndForgetARevokedOneOnReload() throws IOException
    {
        final Path file = dir.resolve("keys");
        final KeysFile.NewKey first = KeysFile.add(file, "acme", new SecureRandom());
        final KeysFile.NewKey second = KeysFile.add(file, "globex", new SecureRandom());
        final ApiKeys keys = ApiKeys.load(List.of(), file);
        assertEquals("acme", keys.authenticate("Bearer " + first.key()).name());
        assertEquals("globex", keys.authenticate("Bearer " + second.key()).name());
        assertNull(keys.authenticate("Bearer " + first.key() + "x"));

        Files.writeString(file, Files.readString(file).replace(first.line() + System.lineSeparator(), ""));
        assertEquals(1, keys.reload());
        assertNull(keys.authenticate("Bearer " + first.key()), "a deleted line revokes its key");
        assertNotNull(keys.authenticate("Bearer " + second.key()));
    }

    @Test
    void shouldRejectAMalformedFileWholeNamingTheLineWithoutEchoingIt() throws IOException
    {
        final Path file = dir.resolve("keys");
        KeysFile.add(file, "acme", new SecureRandom());
        final ApiKeys keys = ApiKeys.load(List.of(), file);
        Files.writeString(file, "acme:k1:not-a-hash-but-maybe-a-pasted-key\n", java.nio.file.StandardOpenOption.APPEND);

        final IllegalArgumentException thrown = assertThrows(IllegalArgumentException.class, keys::reload);
        assertTrue(thrown.getMessage().contains("line 3"), thrown.getMessage());
        assertFalse(thrown.getMessage().contains("pasted-key"), "a malformed line is not echoed");
        assertEquals(1, keys.size(), "the previous keys stay in force");
    }

    @Test
    void shouldRejectADuplicateKeyIdAndAnUnreadableFile() throws IOException
    {
        final Path file = dir.resolve("keys");
        final String line = "acme:k1:" + "ab".repeat(32) + "\n";
        Files.writeString(file, line + line);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> KeysFile.read(file)).getMessage().contains("appears twice"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ApiKeys.load(List.of(), dir.resolve("absent")))
            .getMessage().contains("cannot read keys file"));
    }
}
