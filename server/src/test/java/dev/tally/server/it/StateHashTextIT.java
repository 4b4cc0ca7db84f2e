package dev.tally.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.tally.gateway.http.HttpLimits;
import dev.tally.server.ServerConfig;
import dev.tally.server.TallyServer;
import dev.tally.journal.Durability;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A state hash reads the same wherever it is printed: the server's start-up log and {@code tally replay} give one
 * ledger's hash as the same 16 hex digits, its leading zeros included (so that an operator can compare them as text).
 */
class StateHashTextIT
{
    private static final Pattern LOGGED_HASH = Pattern.compile("state hash (\\S+)$");
    /** Accounts created at most while looking for a hash below 2^60; each try has one chance in 16. */
    private static final int TRIES_MAX = 400;

    @TempDir
    Path dataDir;

    @Test
    void shouldLogTheStateHashAsReplayPrintsItLeadingZerosIncluded() throws Exception
    {
        final ServerConfig config = new ServerConfig("127.0.0.1", 0, dataDir, Durability.ASYNC, Servers.apiKeys(), Servers.IO_THREADS,
            Servers.COMMAND_LINE_LEDGER, Servers.withoutTicks(), HttpLimits.defaults());
        final String replayed = journalWhoseHashStartsWithZero(config);

        final Logger log = (Logger)LoggerFactory.getLogger(TallyServer.class);
        final ListAppender<ILoggingEvent> events = new ListAppender<>();
        events.start();
        log.addAppender(events);
        try (TallyServer restarted = Servers.start(config))
        {
            assertTrue(restarted.port() > 0);
        }
        finally
        {
            log.detachAppender(events);
        }
        final String logged = events.list.stream().map(ILoggingEvent::getFormattedMessage).map(LOGGED_HASH::matcher)
            .filter(Matcher::find).map(m -> m.group(1)).findFirst().orElseThrow(() -> new AssertionError("no state hash logged: " + events.list));
        assertEquals(replayed, logged, "the start-up log and tally replay print the same text for the same state");
    }

    /** Creates accounts until {@code tally replay} prints a hash with a leading zero; @return that hash. */
    private static String journalWhoseHashStartsWithZero(final ServerConfig config) throws Exception
    {
        try (TallyServer server = Servers.start(config))
        {
            final TallyClient client = Servers.client(server);
            for (int id = 1; id <= TRIES_MAX; id++)
            {
                assertEquals(201, client.createAccount(id, TallyClient.TRY, false).status());
                final TallyCli.Run replay = TallyCli.run("replay", "--data-dir", config.dataDir().toString(), "--format", "json",
                    "--no-accounts");
                assertEquals(0, replay.exitCode(), replay.output());
                if (replay.stateHash().startsWith("0"))
                {
                    return replay.stateHash();
                }
            }
        }
        throw new AssertionError("no state hash below 2^60 in " + TRIES_MAX + " tries: (15/16)^" + TRIES_MAX + ", about 6e-12, by chance");
    }
}
