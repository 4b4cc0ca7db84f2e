package dev.tally.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code tally verify}'s status when PostgreSQL cannot be reached: 2, never the 1 that means "they differ". */
class VerifyCommandTest
{
    @TempDir
    Path dataDir;

    @Test
    void shouldExitWith2WhenPostgreSqlCannotBeReached() throws Exception
    {
        final int closedPort;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            closedPort = free.getLocalPort();   // nothing listens there once this closes
        }
        final PrintStream original = System.out;
        final ByteArrayOutputStream printed = new ByteArrayOutputStream();
        final int status;
        try (PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8))
        {
            System.setOut(out);
            status = TallyMain.execute(new String[] {"verify", "--data-dir", dataDir.toString(), "--db-url",
                "jdbc:postgresql://127.0.0.1:" + closedPort + "/tally?connectTimeout=2"}, Map.of(),
                new PrintWriter(new StringWriter(), true), new PrintWriter(new StringWriter(), true));
        }
        finally
        {
            System.setOut(original);
        }
        final String output = printed.toString(StandardCharsets.UTF_8);
        assertEquals(2, status, output);
        assertTrue(output.contains("verify: ERROR cannot read PostgreSQL's watermark"), output);
    }
}
