package dev.tally.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tally.gateway.ReactorFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What docs/openapi.yaml says in prose about tenants and account ids, quoted from the document and held to a real
 * server on loopback: the quote must be in the document, and the server must do what it says. The document's
 * statuses, problem types and limits are {@code OpenApiDocumentTest}'s.
 */
class OpenApiTenantClaimsIT extends OneServerPerTest
{
    private static final String USD = "USD";
    private static String document;

    @BeforeAll
    static void readDocument() throws IOException
    {
        // block scalars wrap and indent their lines: compare with every run of white space as one space
        document = Files.readString(ReactorFiles.locate("docs/openapi.yaml")).replaceAll("\\s+", " ");
    }

    @Test
    void shouldLetTwoTenantsEachHaveAnAccountWithTheSameIdAndSeeOnlyTheirOwn()
    {
        claim("Account ids are chosen by the client: positive 63-bit integers (1 to 9223372036854775807), unique per tenant: " +
            "two tenants may each have an account with the same id, and each sees and moves only its own.");
        claim("an id another tenant uses is free for this one, and neither tenant sees the other's account.");
        final TallyClient other = client.withApiKey(Servers.OTHER_TENANT_KEY);
        createAccount(1, false);
        createAccount(7, true);
        assertEquals(201, other.createAccount(1, USD, false).status(), "the other tenant's account 1");
        assertEquals(201, other.createAccount(7, USD, true).status(), "the other tenant's account 7");

        fund(1, 7, "10.00");
        assertEquals(201, other.transfer("fund-usd-7", 1, 7, "3.00", USD, null).status());

        assertEquals(TRY, client.accountJson(7).get("currency").text());
        assertEquals("10.00", client.accountJson(7).get("posted").text(), "this tenant's 7 holds this tenant's transfer only");
        assertEquals(USD, other.accountJson(7).get("currency").text());
        assertEquals("3.00", other.accountJson(7).get("posted").text(), "the other tenant's 7 holds its own transfer only");
    }

    @Test
    void shouldAnswerAnIdTheTenantAlreadyHasWithAccountExists()
    {
        claim("an id the tenant already has is 409 `account-exists`");
        claim("The tenant already has an account with this id (ids are unique per tenant; another tenant's account with the same " +
            "id is no obstacle); extension `accountId`.");
        createAccount(7, true);
        assertEquals(201, client.withApiKey(Servers.OTHER_TENANT_KEY).createAccount(7, USD, true).status());

        final Reply again = client.post("/v1/accounts", "account-7-again", TallyClient.accountJson(7, TRY, true));
        assertEquals(409, again.status(), again::toString);
        assertEquals("account-exists", again.problemSlug());
        assertEquals(7, again.json().get("accountId").asId());
    }

    @Test
    void shouldAnswerAnotherTenantsAccountExactlyLikeAMissingOne()
    {
        claim("A tenant sees and moves only its own accounts, transfers and holds; another tenant's resource answers exactly " +
            "like a missing one.");
        final TallyClient other = client.withApiKey(Servers.OTHER_TENANT_KEY);
        createAccount(1, false);
        createAccount(2, true);
        final Reply missingRead = other.account(2);
        final Reply missingDebit = other.transfer("take-2", 2, 1, "1.00", TRY, null);
        assertEquals(201, other.createAccount(1, TRY, false).status());
        final Reply missingCredit = other.transfer("give-2", 1, 2, "1.00", TRY, null);
        fund(1, 2, "5.00");
        final String transferId = client.transfer("t-1", 1, 2, "1.00", TRY, null).json().get("id").text();

        assertEquals(404, missingRead.status(), missingRead::toString);
        assertEquals(422, missingCredit.status(), missingCredit::toString);
        assertEquals("account-not-found", missingCredit.problemSlug());
        assertSameReply(missingRead, other.account(2), "reading the other tenant's account 2");
        assertSameReply(missingDebit, other.transfer("take-2-again", 2, 1, "1.00", TRY, null), "debiting it");
        assertSameReply(missingCredit, other.transfer("give-2-again", 1, 2, "1.00", TRY, null), "crediting it");
        assertEquals("6.00", available(2), "this tenant's 5.00 and 1.00 only: the other tenant moved nothing in or out of account 2");
        final Reply foreignTransfer = other.transferById(transferId);
        assertEquals(404, foreignTransfer.status(), foreignTransfer::toString);
        final UUID issued = UUID.fromString(transferId);
        final String neverIssued = new UUID(issued.getMostSignificantBits(), issued.getLeastSignificantBits() + (1_000L << 14)).toString();
        assertEquals(other.transferById(neverIssued).body(), foreignTransfer.body(),
            "another tenant's transfer reads like one never issued (the id of a journal index 1,000 later)");
    }

    private static void claim(final String quote)
    {
        assertTrue(document.contains(quote), () -> "docs/openapi.yaml no longer says: " + quote);
    }

    private static void assertSameReply(final Reply missing, final Reply foreign, final String what)
    {
        assertEquals(missing.status(), foreign.status(), what);
        assertEquals(missing.body(), foreign.body(), what + ": the same body as when the account did not exist");
    }
}
