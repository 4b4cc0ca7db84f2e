package dev.tally.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tally.ledger.id.Uuid7;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reading the ledger at a past point, on {@code tally serve} with its embedded PostgreSQL: {@code GET /v1/accounts/{id}?at=}
 * and {@code ?atIndex=} answer from the read model (the entries' running balances and the holds' lives), and
 * {@code tally replay --until} / {@code --to-index} rebuild the same points from the journal alone. The two must agree,
 * account by account, at every point: a transfer, a hot account's credits, a hold, its partial capture, a partial
 * reversal, and a hold that expires on a journaled tick. One server for the whole story: starting one is most of the cost.
 */
class HistoryOverHttpIT
{
    private static final String OTHER_KEY = "tenant-key-2";
    private static final long[] ACCOUNTS = {1, 2, 3};
    /** Between steps: the wall clock the test samples and the journaler's stamps are the same clock, in two processes. */
    private static final long STEP_GAP_MS = 15;

    @TempDir
    Path dataDir;

    @TempDir
    Path logDir;

    /** A point of the story: an instant between two steps, and what the account bodies should say there (account -> posted/held). */
    private record Point(Instant at, Map<Long, String> expected)
    {
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void shouldAnswerBalancesAtPastPointsAsAReplayOfTheJournalToThemDoes() throws Exception
    {
        try (TallyProcess tally = TallyProcess.start(dataDir, "async", logDir.resolve("serve.log"), List.of(),
            List.of("--api-key", "u:" + OTHER_KEY, "--tick-interval-ms", "50"), Map.of()))
        {
            final TallyClient client = tally.client();
            final Instant beforeAccounts = pause();
            assertEquals(201, client.createAccount(1, TallyClient.TRY, false).status());
            assertEquals(201, client.createAccount(2, TallyClient.TRY, true).status());
            final Reply hot = client.post("/v1/accounts", "account-3",
                "{\"id\":3,\"currency\":\"TRY\",\"subBalances\":4,\"debitsMustNotExceedCredits\":true}");
            assertEquals(201, hot.status(), hot::toString);
            final List<Point> points = new ArrayList<>();
            final List<Long> indexes = new ArrayList<>();

            final Reply paid = ok(client.transfer("pay-1", 1, 2, "100.00", TallyClient.TRY, null));
            indexes.add(indexOf(paid));
            ok(client.transfer("pay-2", 1, 3, "40.00", TallyClient.TRY, null));
            ok(client.transfer("pay-3", 1, 3, "2.50", TallyClient.TRY, null));
            points.add(point("-142.50/0.00", "100.00/0.00", "42.50/0.00"));

            final Reply held = ok(client.hold("hold-1", 2, "30.00", TallyClient.TRY, 60_000));
            indexes.add(indexOf(held));
            points.add(point("-142.50/0.00", "100.00/30.00", "42.50/0.00"));

            final Reply captured = ok(client.capture("take-1", held.json().get("id").text(), 3, "10.00", TallyClient.TRY));
            indexes.add(indexOf(captured));
            points.add(point("-142.50/0.00", "90.00/0.00", "52.50/0.00"));

            final Reply reversed = ok(client.post("/v1/transfers/" + paid.json().get("id").text() + "/reversals", "undo-1",
                "{\"amount\":\"20.00\"}"));
            indexes.add(indexOf(reversed) - 1);   // just before it: the capture's state
            indexes.add(indexOf(reversed));
            points.add(point("-122.50/0.00", "70.00/0.00", "52.50/0.00"));

            ok(client.hold("hold-2", 2, "5.00", TallyClient.TRY, 200));
            points.add(point("-122.50/0.00", "70.00/5.00", "52.50/0.00"));
            Thread.sleep(1_000);   // journaled ticks every 50 ms expire it
            points.add(point("-122.50/0.00", "70.00/0.00", "52.50/0.00"));

            Thread.sleep(200);   // a tick after the last point, so that the read model's watermark passes it
            tally.awaitWriterCaughtUp();

            for (final Point p : points)
            {
                final Map<Long, String> replayed = replay("--until", p.at().toString());
                for (final long account : ACCOUNTS)
                {
                    final Json body = ok(client.get("/v1/accounts/" + account + "?at=" + p.at())).json();
                    final String http = body.get("posted").text() + "/" + body.get("held").text();
                    assertEquals(p.expected().get(account), http, "account " + account + " at " + p.at());
                    assertEquals(replayed.get(account), http, "account " + account + " at " + p.at() + ": HTTP vs replay");
                    assertEquals(body.get("posted").amount().subtract(body.get("held").amount()), body.get("available").amount());
                }
            }
            for (final long index : indexes)
            {
                final Map<Long, String> replayed = replay("--to-index", Long.toString(index));
                for (final long account : ACCOUNTS)
                {
                    final Json body = ok(client.get("/v1/accounts/" + account + "?atIndex=" + index)).json();
                    assertEquals(replayed.get(account), body.get("posted").text() + "/" + body.get("held").text(),
                        "account " + account + " at journal index " + index + ": HTTP vs replay");
                }
            }
            final Json single = ok(client.get("/v1/accounts/2?atIndex=" + indexes.get(1))).json();
            assertEquals("70.00", single.get("subBalanceDetail").at(0).get("available").text(), "one sub-balance: its total");
            assertTrue(!ok(client.get("/v1/accounts/3?atIndex=" + indexes.get(1))).json().has("subBalanceDetail"),
                "a hot account's split at a past point is not recorded: totals only");

            assertEquals(404, client.get("/v1/accounts/2?at=" + beforeAccounts).status(), "the account did not exist yet");
            final TallyClient other = new TallyClient(tally.port(), OTHER_KEY);
            final Reply foreign = other.get("/v1/accounts/2?at=" + points.get(0).at());
            assertEquals(404, foreign.status(), "another tenant's account is not found at any point");
            assertEquals("not-found", foreign.problemSlug());

            final Instant last = points.get(points.size() - 1).at();
            final String offset = last.atOffset(java.time.ZoneOffset.ofHours(3)).toString();   // "+03:00", sent unencoded
            assertEquals(ok(client.get("/v1/accounts/2?at=" + last)).json().get("posted").text(),
                ok(client.get("/v1/accounts/2?at=" + offset)).json().get("posted").text(), "the same instant at another offset");
            for (final String bad : List.of("at=yesterday", "at=2026-12-01T00:00:00", "at=" + last + "&atIndex=1", "atIndex=-1",
                "atIndex=x", "atIndex=" + (1L << 40), "at=2999-01-01T00:00:00Z", "at=1969-12-31T23:59:59Z", "at="))
            {
                final Reply refused = client.get("/v1/accounts/2?" + bad);
                assertEquals(400, refused.status(), bad + ": " + refused);
                assertEquals("invalid-request", refused.problemSlug(), bad);
            }

            assertStatements(client, other, tally.port(), points.get(0).at(), last);
            tally.stop();
        }
    }

    /**
     * Statements of each account over the story and over a window inside it: the opening balance is the account at
     * {@code from}, each entry's running balance is the one before plus its amount, the closing balance is the account
     * at {@code to}; CSV says the same as JSON; a statement keeps its place among pipelined replies.
     */
    private static void assertStatements(final TallyClient client, final TallyClient other, final int port, final Instant from, final Instant to)
        throws Exception
    {
        for (final long account : ACCOUNTS)
        {
            final String period = "?from=" + from + "&to=" + to;
            final Reply reply = ok(client.get("/v1/accounts/" + account + "/statement" + period));
            assertEquals("application/json", reply.header("Content-Type"));
            final Json statement = reply.json();
            assertEquals(account, statement.get("accountId").asId(), "an account id as a string");
            final java.math.BigDecimal opening = statement.get("openingBalance").amount();
            final Json atFrom = ok(client.get("/v1/accounts/" + account + "?at=" + from)).json();
            assertEquals(account, atFrom.get("id").asId());
            assertEquals(atFrom.get("posted").amount(), opening);
            java.math.BigDecimal running = opening;
            final Json entries = statement.get("entries");
            assertTrue(entries.size() > 0, "account " + account + " moved in the period");
            for (int i = 0; i < entries.size(); i++)
            {
                running = running.add(entries.at(i).get("amount").amount());
                assertEquals(running, entries.at(i).get("balanceAfter").amount(), "account " + account + ", entry " + i);
            }
            assertEquals(running, statement.get("closingBalance").amount(), "opening + entries = closing");
            assertEquals(ok(client.get("/v1/accounts/" + account + "?at=" + to)).json().get("posted").amount(), running);

            final Reply csv = ok(client.send(client.request("/v1/accounts/" + account + "/statement" + period).header("Accept", "text/csv")));
            assertTrue(csv.header("Content-Type").startsWith("text/csv"), csv::toString);
            final List<String> lines = csv.body().lines().toList();
            assertEquals("type,entry_id,transfer_id,kind,created_at,journal_index,amount,balance_after", lines.get(0));
            assertEquals(entries.size() + 3, lines.size(), csv.body());
            assertTrue(lines.get(1).startsWith("opening,") && lines.get(1).endsWith("," + opening.toPlainString()), lines.get(1));
            assertEquals("entry," + entries.at(0).get("id").text() + "," + entries.at(0).get("transferId").text() + "," +
                entries.at(0).get("kind").text(), String.join(",", java.util.Arrays.copyOf(lines.get(2).split(","), 4)));
            assertTrue(lines.get(lines.size() - 1).endsWith("," + running.toPlainString()), "closing line");
            assertEquals(404, other.get("/v1/accounts/" + account + "/statement" + period).status(), "another tenant's account");
        }
        final String window = "?from=" + from.plusMillis(1) + "&to=" + to.minusMillis(1);
        final Json two = ok(client.get("/v1/accounts/2/statement" + window)).json();
        assertEquals(two.get("closingBalance").amount(), ok(client.get("/v1/accounts/2?at=" + to.minusMillis(1))).json().get("posted").amount());
        for (final String bad : List.of("?from=" + to + "&to=" + from, "?from=" + from, "?to=" + to, "?from=x&to=" + to, "",
            "?from=" + from + "&to=2999-01-01T00:00:00Z"))
        {
            final Reply refused = client.get("/v1/accounts/2/statement" + bad);
            assertEquals(400, refused.status(), bad + ": " + refused);
            assertEquals("invalid-request", refused.problemSlug(), bad);
        }
        try (RawConnection connection = new RawConnection(port))
        {
            connection.write(RawConnection.request("GET", "/v1/accounts/2/statement?from=" + from + "&to=" + to, null, null) +
                RawConnection.request("GET", "/v1/accounts/2/statement?from=x", null, null) +
                RawConnection.request("GET", "/v1/accounts/2", null, null));
            final RawConnection.RawResponse streamed = connection.read();
            assertEquals(200, streamed.status());
            assertEquals(ok(client.get("/v1/accounts/2?at=" + to)).json().get("posted").text(),
                Json.parse(streamed.body()).get("closingBalance").text(), "a whole chunked statement");
            assertEquals(400, connection.read().status(), "the I/O thread's 400 waits behind the stream");
            assertTrue(connection.read().body().contains("\"subBalanceDetail\""), "then the account now");
        }
    }

    /** @return the instant of a point between steps: the step before is journaled, the next not yet. */
    private static Instant pause() throws InterruptedException
    {
        Thread.sleep(STEP_GAP_MS);
        final Instant at = Instant.now();
        Thread.sleep(STEP_GAP_MS);
        return at;
    }

    private static Point point(final String one, final String two, final String three) throws InterruptedException
    {
        return new Point(pause(), Map.of(1L, one, 2L, two, 3L, three));
    }

    private static Reply ok(final Reply reply)
    {
        assertTrue(reply.status() == 200 || reply.status() == 201, reply::toString);
        return reply;
    }

    /** @return the journal index of the command that made the transfer or hold the reply is about: its id carries it. */
    private static long indexOf(final Reply reply)
    {
        final UUID id = UUID.fromString(reply.json().get(reply.json().has("transferId") ? "transferId" : "id").text());
        return Uuid7.journalIndex(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }

    /** @return account -> "posted/held" as {@code tally replay <bound>} prints them, for the three accounts of the story. */
    private Map<Long, String> replay(final String option, final String value)
    {
        final TallyCli.Run run = TallyCli.run("replay", "--data-dir", dataDir.toString(), option, value, "--format", "json",
            "--account", "1", "--account", "2", "--account", "3");
        assertEquals(0, run.exitCode(), run.output());
        final Json accounts = Json.parse(run.output().substring(0, run.output().indexOf('\n'))).get("accounts");
        final Map<Long, String> balances = new HashMap<>();
        for (int i = 0; i < accounts.size(); i++)
        {
            balances.put(accounts.at(i).get("id").asLong(), accounts.at(i).get("posted").text() + "/" + accounts.at(i).get("held").text());
        }
        assertEquals(3, balances.size(), run.output());
        return balances;
    }
}
