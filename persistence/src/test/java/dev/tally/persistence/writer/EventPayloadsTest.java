package dev.tally.persistence.writer;

import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.id.Uuid7;
import dev.tally.ledger.result.Result;
import dev.tally.ledger.result.ResultCode;
import dev.tally.persistence.LedgerScenario;
import dev.tally.persistence.PostgresFixture;
import dev.tally.persistence.db.Database;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

import static dev.tally.persistence.writer.LedgerWriterConvergenceTest.testConfig;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The outbox payload of every event type but TransferPosted (see TransferMetadataTest, LedgerReadsTest), member by member,
 * from real commands through the ledger, the ring and the writer into a real embedded PostgreSQL. Holds are ended both in
 * the batch that created them (ids from the batch itself) and in a later batch (ids read back from PostgreSQL).
 */
class EventPayloadsTest
{
    private static final DateTimeFormatter ISO_MS = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    static PostgresFixture pg;
    static Database db;
    static LedgerScenario s;
    static Command accountCreated;
    static Command transferred;
    static Command reversed;
    static Command heldAndCaptured;
    static Command captured;
    static Command heldAndVoided;
    static Command voided;
    static Command heldThenCapturedLater;
    static Command capturedLater;
    static Command heldThenExpired;
    static Command expiryTick;
    static Command heldThenUnknown;
    static Command markedUnknown;
    static Command crossedBelow;
    static Command crossedBack;

    @BeforeAll
    static void runEveryKindOfEventIntoPostgres()
    {
        pg = PostgresFixture.start(EventPayloadsTest.class);
        db = pg.newDatabase();
        try (LedgerWriter writer = LedgerWriter.create(db, testConfig()))
        {
            final EffectRecorder recorder = writer.createRecorder(writer.watermark());
            s = new LedgerScenario(LedgerConfig.small(), recorder::onUnit);
            // Before the writer runs: all of these wait in the ring and are written as one batch.
            ok(s.createAccount(1, 1, false, 0));
            ok(s.createAccount(2, 1, true, 0));
            ok(s.createAccount(3, 4, false, 0));
            ok(s.createAccount(4, 1, true, 5_000));
            accountCreated = last();
            ok(s.transfer(1, 2, 10_000, "inv-1"));
            transferred = last();
            ok(s.reverse(resultOf(transferred), 2_500));
            reversed = last();
            ok(s.hold(2, 5_000, 60_000));
            heldAndCaptured = last();
            ok(s.capture(resultOf(heldAndCaptured), 3, 2_000));
            captured = last();
            ok(s.hold(2, 700, 60_000));
            heldAndVoided = last();
            ok(s.voidHold(resultOf(heldAndVoided)));
            voided = last();
            writer.start();
            caughtUp(writer);
            assertEquals(1, writer.batchesCommitted(), "the units before the start were one batch");

            // Each hold ended in a later batch than the one that created it.
            ok(s.hold(2, 400, 60_000));
            heldThenCapturedLater = last();
            caughtUp(writer);
            ok(s.capture(resultOf(heldThenCapturedLater), 1, 0));   // the whole hold
            capturedLater = last();
            ok(s.hold(2, 300, 1_000));
            heldThenExpired = last();
            caughtUp(writer);
            final Result tick = ok(s.tick(5_000));
            assertEquals(1, tick.extra, "one hold expired");
            expiryTick = last();
            ok(s.hold(2, 100, 60_000));
            heldThenUnknown = last();
            caughtUp(writer);
            ok(s.markUnknown(resultOf(heldThenUnknown)));
            markedUnknown = last();
            // Account 2 has 5,000 available (5,100 posted, the unknown hold's 100 held): a threshold of 4,000, crossed both ways.
            ok(s.lowBalanceAlert(2, 4_000));
            ok(s.transfer(2, 1, 1_500, null));
            crossedBelow = last();
            ok(s.transfer(1, 2, 600, null));
            crossedBack = last();
            caughtUp(writer);
            assertNull(writer.failure());
        }
    }

    @AfterAll
    static void stopPostgres()
    {
        pg.close();
    }

    @Test
    void shouldDescribeTheCreatedAccount() throws SQLException
    {
        final Map<String, String> expected = common(accountCreated, "AccountCreated");
        expected.put("accountId", "4");
        expected.put("currency", "USD");
        expected.put("subBalances", "1");
        expected.put("debitsMustNotExceedCredits", "true");
        expected.put("overdraftLimitMinor", "5000");
        expected.put("metadata", null);   // created without any: null, never left out
        assertEquals(expected, payload("AccountCreated", accountCreated, "account", "4"));
    }

    @Test
    void shouldNameTheReversalAndTheTransferItReverses() throws SQLException
    {
        final UUID reversal = transferId(reversed);
        final Map<String, String> expected = common(reversed, "TransferReversed");
        expected.put("transferId", reversal.toString());
        expected.put("reversedTransferId", transferId(transferred).toString());
        expected.put("debitAccountId", "2");   // the money goes back: credit and debit of the original swapped
        expected.put("creditAccountId", "1");
        amount(expected, "25.00", 2_500);
        // a reversal is an event of the transfer it reverses, for the relay's per-aggregate order
        assertEquals(expected, payload("TransferReversed", reversed, "transfer", transferId(transferred).toString()));
        assertEquals(reversal.toString(), text("SELECT id FROM transfers WHERE kind = 'reversal' AND reverses_id = '" +
            transferId(transferred) + "'"), "the id of the reversal's row");
    }

    @Test
    void shouldGiveTheCreatedHoldsExpiryFromItsTimeout() throws SQLException
    {
        final Map<String, String> expected = holdEvent(heldAndCaptured, heldAndCaptured, "HoldCreated", "2", "50.00", 5_000);
        expected.put("expiresAt", iso(heldAndCaptured.timestampNs / 1_000_000L + 60_000));
        assertEquals(expected, payload("HoldCreated", heldAndCaptured, "hold", holdId(heldAndCaptured).toString()));

        final Map<String, String> expiring = holdEvent(heldThenExpired, heldThenExpired, "HoldCreated", "2", "3.00", 300);
        expiring.put("expiresAt", iso(heldThenExpired.timestampNs / 1_000_000L + 1_000));
        assertEquals(expiring, payload("HoldCreated", heldThenExpired, "hold", holdId(heldThenExpired).toString()));
    }

    @Test
    void shouldGiveACapturesTransferCapturedAndReleasedAmounts() throws SQLException
    {
        final Map<String, String> partial = holdEvent(captured, heldAndCaptured, "HoldCaptured", "2", "20.00", 2_000);
        partial.put("transferId", transferId(captured).toString());
        partial.put("creditAccountId", "3");
        partial.put("releasedMinor", "3000");
        assertEquals(partial, payload("HoldCaptured", captured, "hold", holdId(heldAndCaptured).toString()));

        final Map<String, String> whole = holdEvent(capturedLater, heldThenCapturedLater, "HoldCaptured", "2", "4.00", 400);
        whole.put("transferId", transferId(capturedLater).toString());
        whole.put("creditAccountId", "1");
        whole.put("releasedMinor", "0");
        assertEquals(whole, payload("HoldCaptured", capturedLater, "hold", holdId(heldThenCapturedLater).toString()));

        assertEquals(transferId(captured).toString(), text("SELECT id FROM transfers WHERE kind = 'capture' AND hold_id = '" +
            holdId(heldAndCaptured) + "'"), "the id of the capture's transfer row");
    }

    @Test
    void shouldDescribeTheVoidedExpiredAndUnknownHold() throws SQLException
    {
        assertEquals(holdEvent(voided, heldAndVoided, "HoldVoided", "2", "7.00", 700),
            payload("HoldVoided", voided, "hold", holdId(heldAndVoided).toString()));
        assertEquals(holdEvent(expiryTick, heldThenExpired, "HoldExpired", "2", "3.00", 300),
            payload("HoldExpired", expiryTick, "hold", holdId(heldThenExpired).toString()));
        assertEquals(holdEvent(markedUnknown, heldThenUnknown, "HoldMarkedUnknown", "2", "1.00", 100),
            payload("HoldMarkedUnknown", markedUnknown, "hold", holdId(heldThenUnknown).toString()));
    }

    @Test
    void shouldGiveALowBalanceAlertTheAccountItsAvailableBalanceAndThreshold() throws SQLException
    {
        assertEquals(alertEvent(crossedBelow, "AccountBalanceLow", "35.00", 3_500),
            payload("AccountBalanceLow", crossedBelow, "account", "2"));
        assertEquals(alertEvent(crossedBack, "AccountBalanceRecovered", "41.00", 4_100),
            payload("AccountBalanceRecovered", crossedBack, "account", "2"));
    }

    @Test
    void shouldWriteTheTenantAndEveryAccountIdAsAString() throws SQLException
    {
        // A JavaScript consumer reads a JSON number through a double, exact only up to 2^53: ids go out as strings.
        final String ids = "FROM outbox_events o, jsonb_each(o.payload) m WHERE m.key IN ('tenantId', 'accountId', 'debitAccountId'," +
            " 'creditAccountId')";
        assertEquals("0", text("SELECT count(*) " + ids + " AND jsonb_typeof(m.value) <> 'string'"));
        assertTrue(Long.parseLong(text("SELECT count(*) " + ids + " AND jsonb_typeof(m.value) = 'string'")) > 20);
        assertEquals("0", text("SELECT count(*) FROM outbox_events WHERE (payload->>'schemaVersion')::int <> 2"));
        assertEquals("number", text("SELECT DISTINCT jsonb_typeof(payload->'journalIndex') FROM outbox_events"));
    }

    // ---- expected payloads ----

    /** An alert of account 2 (threshold 40.00 USD) after the transfer {@code command}, whose own event takes ordinal 0. */
    private static Map<String, String> alertEvent(final Command command, final String type, final String available, final long minor)
    {
        final Map<String, String> m = common(command, type);
        m.put("eventId", new UUID(Uuid7.hi(command.timestampNs, Uuid7.KIND_EVENT), Uuid7.lo(command.journalIndex, 1)).toString());
        m.put("accountId", "2");
        m.put("currency", "USD");
        m.put("available", available);
        m.put("availableMinor", String.valueOf(minor));
        m.put("threshold", "40.00");
        m.put("thresholdMinor", "4000");
        return m;
    }


    /** The members every event has, for the event of {@code type} that {@code command} emitted (its first). */
    private static Map<String, String> common(final Command command, final String type)
    {
        final Map<String, String> m = new LinkedHashMap<>();
        m.put("schemaVersion", "2");
        m.put("eventId", new UUID(Uuid7.hi(command.timestampNs, Uuid7.KIND_EVENT), Uuid7.lo(command.journalIndex, 0)).toString());
        m.put("type", type);
        m.put("tenantId", "1");
        m.put("journalIndex", String.valueOf(command.journalIndex));
        m.put("occurredAt", iso(command.timestampNs / 1_000_000L));
        return m;
    }

    private static Map<String, String> holdEvent(
        final Command command, final Command creation, final String type, final String account, final String amount, final long minor)
    {
        final Map<String, String> m = common(command, type);
        m.put("holdId", holdId(creation).toString());
        m.put("accountId", account);
        amount(m, amount, minor);
        return m;
    }

    private static void amount(final Map<String, String> m, final String amount, final long minor)
    {
        m.put("amount", amount);
        m.put("amountMinor", String.valueOf(minor));
        m.put("currency", "USD");
    }

    private static String iso(final long epochMs)
    {
        return ISO_MS.format(Instant.ofEpochMilli(epochMs));
    }

    private static UUID transferId(final Command c)
    {
        return new UUID(Uuid7.hi(c.timestampNs, Uuid7.KIND_TRANSFER), Uuid7.lo(c.journalIndex, 0));
    }

    private static UUID holdId(final Command c)
    {
        return new UUID(Uuid7.hi(c.timestampNs, Uuid7.KIND_HOLD), Uuid7.lo(c.journalIndex, 0));
    }

    // ---- what PostgreSQL holds ----

    /**
     * @return the top-level members of the one outbox row of that type and command, as text (null for JSON null),
     * after checking the row's aggregate and that its payload repeats the row's id.
     */
    private static Map<String, String> payload(final String type, final Command command, final String aggregateType,
        final String aggregateId) throws SQLException
    {
        try (Connection c = db.dataSource().getConnection(); PreparedStatement st = c.prepareStatement(
            "SELECT o.id, o.aggregate_type, o.aggregate_id, m.key, m.value FROM outbox o, jsonb_each_text(o.payload) m" +
            " WHERE o.event_type = ? AND o.journal_index = ?"))
        {
            st.setString(1, type);
            st.setLong(2, command.journalIndex);
            final Map<String, String> members = new HashMap<>();
            UUID id = null;
            try (ResultSet rs = st.executeQuery())
            {
                while (rs.next())
                {
                    final UUID rowId = rs.getObject(1, UUID.class);
                    assertTrue(id == null || id.equals(rowId), "one " + type + " event at journal index " + command.journalIndex);
                    id = rowId;
                    assertEquals(aggregateType, rs.getString(2), "aggregate type");
                    assertEquals(aggregateId, rs.getString(3), "aggregate id");
                    assertFalse(members.containsKey(rs.getString(4)));
                    members.put(rs.getString(4), rs.getString(5));
                }
            }
            assertTrue(id != null, "a " + type + " event at journal index " + command.journalIndex);
            assertEquals(id.toString(), members.get("eventId"), "the payload's eventId is the row's id");
            return members;
        }
    }

    private static String text(final String query) throws SQLException
    {
        try (Connection c = db.dataSource().getConnection(); var st = c.createStatement(); ResultSet rs = st.executeQuery(query))
        {
            assertTrue(rs.next(), query);
            final String value = rs.getString(1);
            assertFalse(rs.next(), "one row: " + query);
            return value;
        }
    }

    // ---- driving the ledger ----

    private static Command last()
    {
        return s.journal().get(s.journal().size() - 1);
    }

    /** A result naming {@code c} as its origin, as the commands ending a hold or reversing a transfer take it. */
    private static Result resultOf(final Command c)
    {
        final Result r = new Result();
        r.originIndex = c.journalIndex;
        r.originTimestampNs = c.timestampNs;
        return r;
    }

    private static void caughtUp(final LedgerWriter writer)
    {
        assertTrue(writer.awaitWatermark(s.ledger.lastJournalIndex(), Duration.ofSeconds(30)), () -> "caught up: " + writer.failure());
    }

    private static Result ok(final Result r)
    {
        assertEquals(ResultCode.OK, r.code, r::toString);
        return r;
    }
}
