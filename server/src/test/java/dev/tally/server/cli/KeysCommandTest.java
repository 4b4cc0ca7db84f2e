package dev.tally.server.cli;

import dev.tally.gateway.http.ApiKeys;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

class KeysCommandTest
{
    @TempDir
    Path dir;

    @Test
    void shouldPrintANewKeyOnceAndAppendOnlyItsHash() throws Exception
    {
        final Path file = dir.resolve("keys");
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int status = TallyMain.execute(new String[] {"keys", "add", "--keys-file", file.toString(), "--tenant", "acme"}, Map.of(),
            new PrintWriter(out, true), new PrintWriter(err, true));
        assertEquals(0, status, err::toString);
        final String key = out.toString().strip();
        assertFalse(Files.readString(file).contains(key));
        assertFalse(err.toString().contains(key), "the key is printed once, on stdout only");
        assertNotNull(ApiKeys.load(List.of(), file).authenticate("Bearer " + key));
    }

    @Test
    void shouldExitWithStatus2OnAnInvalidTenant()
    {
        final StringWriter err = new StringWriter();
        final int status = TallyMain.execute(new String[] {"keys", "add", "--keys-file", dir.resolve("k").toString(), "--tenant", "a b"},
            Map.of(), new PrintWriter(new StringWriter(), true), new PrintWriter(err, true));
        assertEquals(2, status, err::toString);
    }
}
