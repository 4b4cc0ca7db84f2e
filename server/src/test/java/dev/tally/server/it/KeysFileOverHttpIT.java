package dev.tally.server.it;

import dev.tally.gateway.http.ApiKeys;
import dev.tally.gateway.http.KeysFile;
import dev.tally.server.TallyServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Keys from a keys file of hashes authenticate over HTTP; wrong, missing and revoked keys get 401. */
class KeysFileOverHttpIT
{
    @TempDir
    Path dataDir;

    @TempDir
    Path keysDir;

    @Test
    void shouldServeFileKeysAndAnswer401ToWrongMissingAndRevokedKeys() throws Exception
    {
        final Path file = keysDir.resolve("keys");
        final KeysFile.NewKey kept = KeysFile.add(file, Servers.TENANT, new SecureRandom());
        final KeysFile.NewKey revoked = KeysFile.add(file, Servers.TENANT, new SecureRandom());
        final ApiKeys keys = ApiKeys.load(List.of(), file);
        try (TallyServer server = Servers.start(Servers.config(dataDir, keys)))
        {
            final TallyClient client = new TallyClient(server.port(), kept.key());
            assertEquals(201, client.createAccount(1, TallyClient.TRY, false).status());
            assertEquals(200, new TallyClient(server.port(), revoked.key()).account(1).status(), "same tenant, second key");

            assertUnauthorized(new TallyClient(server.port(), kept.key() + "x").account(1));
            assertUnauthorized(new TallyClient(server.port(), null).account(1));
            assertUnauthorized(new TallyClient(server.port(), Servers.TENANT_KEY).account(1));

            Files.writeString(file, Files.readString(file).replace(revoked.line() + System.lineSeparator(), ""));
            keys.reload();
            assertUnauthorized(new TallyClient(server.port(), revoked.key()).account(1));
            assertEquals(200, client.account(1).status(), "the other key still works");
        }
    }

    private static void assertUnauthorized(final Reply reply)
    {
        assertEquals(401, reply.status(), reply::toString);
        assertEquals("unauthorized", reply.problemSlug());
    }
}
