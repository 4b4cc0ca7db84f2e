package dev.tally.persistence.outbox;

import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.currency.CurrencyCode;
import dev.tally.ledger.result.Result;
import dev.tally.ledger.result.ResultCode;
import dev.tally.persistence.LedgerScenario;
import dev.tally.persistence.PostgresFixture;
import dev.tally.persistence.db.Database;
import dev.tally.persistence.verify.Verifier;
import dev.tally.persistence.writer.EffectRecorder;
import dev.tally.persistence.writer.LedgerWriter;
import dev.tally.persistence.writer.WriterConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A TransferPosted outbox row stores no payload (V6): its payload is rendered from its transfers row when read. Against
 * a real embedded PostgreSQL fed by the real writer: the row's payload column is NULL, the rendered payload is
 * exactly the JSON the writer stored before (member for member, hence the same jsonb text), the relay's claim
 * returns it, the amount's digits follow the ledger's currencies, and the verifier sees every row find its transfer.
 */
class TransferPostedPayloadTest
{
    private static final DateTimeFormatter OCCURRED_AT = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);
    private static final String METADATA = "{\"orderId\":\"A-17\",\"channel\":\"web\",\"ş\":\"ü\"}";

    static PostgresFixture pg;
    static Database db;
    static LedgerScenario s;
    static final List<Posted> POSTED = new ArrayList<>();

    /** A transfer posted in setup, with what its payload must say. */
    private record Posted(Result result, long tenantId, long debit, long credit, long amountMinor, String reference, String metadata,
                          String currency, String amountText)
    {
        /**
         * @return the payload a stored one would be, in the writer's member order: schema version 2 (V11), ids as strings, as
         *         the writer stores every other event's.
         */
        String expectedPayload()
        {
            return "{\"schemaVersion\":2,\"eventId\":\"" + eventId(result) + "\",\"type\":\"TransferPosted\",\"tenantId\":\"" + tenantId +
                "\",\"journalIndex\":" + result.originIndex + ",\"occurredAt\":\"" + OCCURRED_AT.format(Instant.ofEpochMilli(
                Math.floorDiv(result.originTimestampNs, 1_000_000L))) + "\",\"transferId\":\"" + LedgerScenario.transferId(result) +
                "\",\"debitAccountId\":\"" + debit + "\",\"creditAccountId\":\"" + credit + "\",\"amount\":\"" + amountText + "\",\"amountMinor\":" +
                amountMinor + ",\"currency\":\"" + currency + "\",\"reference\":" + (reference == null ? "null" : "\"" +
                reference.replace("\\", "\\\\").replace("\"", "\\\"") + "\"") + ",\"metadata\":" + (metadata == null ? "null" : metadata) + "}";
        }
    }

    @BeforeAll
    static void postTransfersInThreeCurrencies()
    {
        pg = PostgresFixture.start(TransferPostedPayloadTest.class);
        db = pg.newDatabase();
        try (LedgerWriter writer = LedgerWriter.create(db, WriterConfig.defaults().withBatch(300, 2)))
        {
            final EffectRecorder recorder = writer.createRecorder(writer.watermark());
            writer.start();
            s = new LedgerScenario(LedgerConfig.small(), recorder::onUnit);
            ok(s.createAccount(1, 1, false, 0));
            ok(s.createAccount(2, 4, true, 0));
            post(1, 2, 12_345, "inv-\"q\"\\1", METADATA, "USD", "123.45");
            post(1, 2, 5, null, null, "USD", "0.05");
            s.tenant(7).currency(CurrencyCode.pack("JPY"));
            ok(s.createAccount(1, 1, false, 0));
            ok(s.createAccount(3, 1, true, 0));
            post(1, 3, 500, "jp-1", null, "JPY", "500");
            s.currency(CurrencyCode.pack("KWD"));
            ok(s.createAccount(4, 1, false, 0));
            ok(s.createAccount(5, 1, true, 0));
            post(4, 5, 1_005, null, "{\"k\":\"v\"}", "KWD", "1.005");
            assertTrue(writer.awaitWatermark(s.ledger.lastJournalIndex(), Duration.ofSeconds(30)), "writer caught up");
            assertNull(writer.failure());
        }
    }

    @AfterAll
    static void stopPostgres()
    {
        pg.close();
    }

    @Test
    void shouldStoreNoPayloadOnATransferPostedRowAndKeepItOnTheOthers() throws SQLException
    {
        assertEquals(0, count("SELECT count(*) FROM outbox WHERE event_type = 'TransferPosted' AND payload IS NOT NULL"));
        assertEquals(POSTED.size(), count("SELECT count(*) FROM outbox WHERE event_type = 'TransferPosted'"));
        assertEquals(6, count("SELECT count(*) FROM outbox WHERE event_type = 'AccountCreated' AND payload ? 'schemaVersion'"));
    }

    @Test
    void shouldRenderTheSamePayloadTheWriterStoredFromTheTransfersRow() throws SQLException
    {
        for (int i = 0; i < POSTED.size(); i++)
        {
            final String expected = POSTED.get(i).expectedPayload();
            try (Connection c = db.dataSource().getConnection(); PreparedStatement st = c.prepareStatement(
                "SELECT payload::text, (?::jsonb)::text, payload = ?::jsonb FROM outbox_events WHERE event_type = 'TransferPosted'" +
                " AND journal_index = ?"))
            {
                st.setString(1, expected);
                st.setString(2, expected);
                st.setLong(3, POSTED.get(i).result().originIndex);
                try (ResultSet rs = st.executeQuery())
                {
                    assertTrue(rs.next());
                    assertEquals(rs.getString(2), rs.getString(1), "the same jsonb text as the stored payload was");
                    assertTrue(rs.getBoolean(3));
                }
            }
        }
    }

    @Test
    void shouldHandTheRenderedPayloadToTheRelay() throws SQLException
    {
        final Map<UUID, OutboxEvent> claimed = new OutboxSql(db.dataSource()).claim(2_000, 100, 60_000).stream()
            .collect(Collectors.toMap(OutboxEvent::id, Function.identity()));
        for (int i = 0; i < POSTED.size(); i++)
        {
            final Posted posted = POSTED.get(i);
            final OutboxEvent event = claimed.get(eventId(posted.result()));
            assertNotNull(event, "the TransferPosted event of " + posted.result().originIndex + " heads its aggregate");
            assertEquals(jsonbText(posted.expectedPayload()), event.payload());
            assertEquals("transfer", event.aggregateType());
        }
    }

    @Test
    void shouldWriteEachCurrencysAmountWithTheDigitsTheLedgerGivesIt() throws SQLException
    {
        final List<String> codes = new ArrayList<>();
        final List<Integer> digits = new ArrayList<>();
        for (char a = 'A'; a <= 'Z'; a++)
        {
            for (char b = 'A'; b <= 'Z'; b++)
            {
                for (char c = 'A'; c <= 'Z'; c++)
                {
                    final String code = "" + a + b + c;
                    codes.add(code);
                    digits.add(Math.max(0, CurrencyCode.minorDigits(CurrencyCode.pack(code))));
                }
            }
        }
        try (Connection c = db.dataSource().getConnection(); PreparedStatement st = c.prepareStatement(
            "SELECT string_agg(u.code, ',') FROM unnest(?::text[], ?::int[]) AS u(code, digits) WHERE tally_minor_digits(u.code) <> u.digits"))
        {
            st.setArray(1, c.createArrayOf("text", codes.toArray()));
            st.setArray(2, c.createArrayOf("int4", digits.toArray()));
            try (ResultSet rs = st.executeQuery())
            {
                assertTrue(rs.next());
                assertNull(rs.getString(1), "codes whose digits differ from CurrencyCode.minorDigits");
            }
        }
    }

    @Test
    void shouldVerifyThatEveryTransferPostedRowFindsItsTransfer() throws SQLException
    {
        assertEquals(List.of(), new Verifier(s.ledger, db.dataSource()).verify().differences());
    }

    private static void post(final long debit, final long credit, final long amountMinor, final String reference, final String metadata,
        final String currency, final String amountText)
    {
        final Result r = ok(s.transfer(debit, credit, amountMinor, reference, metadata));
        POSTED.add(new Posted(r, "USD".equals(currency) ? 1 : 7, debit, credit, amountMinor, reference, metadata, currency, amountText));
    }

    /** @return the id of a transfer's TransferPosted event: the event kind, its command, ordinal 0. */
    private static UUID eventId(final Result r)
    {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT id FROM outbox WHERE event_type = 'TransferPosted' AND journal_index = " + r.originIndex))
        {
            return rs.next() ? rs.getObject(1, UUID.class) : null;
        }
        catch (final SQLException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private static String jsonbText(final String json) throws SQLException
    {
        try (Connection c = db.dataSource().getConnection(); PreparedStatement st = c.prepareStatement("SELECT (?::jsonb)::text"))
        {
            st.setString(1, json);
            try (ResultSet rs = st.executeQuery())
            {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    private static long count(final String sql) throws SQLException
    {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql))
        {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static Result ok(final Result r)
    {
        assertEquals(ResultCode.OK, r.code, () -> "result " + r.code);
        return r;
    }
}
