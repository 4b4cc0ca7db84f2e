package dev.tally.server.it;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.tally.gateway.http.ApiKeys;
import dev.tally.gateway.http.KeysFile;
import dev.tally.server.TallyServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Everything logged over a server's life, with good, wrong and revoked keys (the admin key too), mentions no key and no key hash. */
class LogsCarryNoKeysIT
{
    @TempDir
    Path dataDir;

    @Test
    void shouldLogNoKeyNorHashFromStartToStop() throws Exception
    {
        final Logger root = ((LoggerContext)LoggerFactory.getILoggerFactory()).getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        final ListAppender<ILoggingEvent> events = new ListAppender<>();
        events.setContext(root.getLoggerContext());
        events.start();
        root.addAppender(events);
        final Path file = dataDir.resolve("keys");
        final KeysFile.NewKey fileKey = KeysFile.add(file, Servers.TENANT, new SecureRandom());
        final String flagKey = "flag-key-secret-1";
        final String adminKey = "admin-key-secret-0123";
        try
        {
            final ApiKeys keys = ApiKeys.load(List.of("u:" + flagKey), file, adminKey);
            try (TallyServer server = Servers.start(Servers.config(dataDir.resolve("data"), keys)))
            {
                new TallyClient(server.port(), fileKey.key()).createAccount(1, TallyClient.TRY, false);
                new TallyClient(server.port(), flagKey).account(1);
                new TallyClient(server.port(), fileKey.key() + "-wrong").account(1);
                new TallyClient(server.port(), adminKey).post("/admin/snapshot", null, "");
                new TallyClient(server.port(), adminKey + "-wrong").post("/admin/snapshot", null, "");
                Files.writeString(file, "");
                keys.reload();
                new TallyClient(server.port(), fileKey.key()).account(1);
            }
        }
        finally
        {
            root.detachAppender(events);
        }
        assertFalse(events.list.isEmpty(), "the server logged something");
        final String hash = fileKey.line().substring(fileKey.line().lastIndexOf(':') + 1);
        for (final ILoggingEvent event : events.list)
        {
            final String text = event.getFormattedMessage() + (event.getThrowableProxy() == null ? "" : event.getThrowableProxy().getMessage());
            assertFalse(text.contains(fileKey.key()), () -> "a key in the log: " + text);
            assertFalse(text.contains(flagKey), () -> "a key in the log: " + text);
            assertFalse(text.contains("admin-key-secret"), () -> "the admin key in the log: " + text);
            assertFalse(text.contains(hash), () -> "a key hash in the log: " + text);
        }
        assertTrue(events.list.stream().anyMatch(e -> e.getFormattedMessage().contains("tally serving")));
        assertTrue(events.list.stream().anyMatch(e -> e.getFormattedMessage().contains("snapshot requested")), "the admin request was logged");
    }
}
