package dev.tally.persistence.writer;

import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.result.Result;
import dev.tally.ledger.result.ResultCode;
import dev.tally.persistence.LedgerScenario;
import dev.tally.persistence.PostgresFixture;
import dev.tally.persistence.db.Database;
import dev.tally.persistence.read.LedgerReads;
import dev.tally.persistence.read.TransferRow;
import dev.tally.persistence.verify.Verifier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.util.List;

import static dev.tally.persistence.writer.EffectRecorderTest.METADATA;
import static dev.tally.persistence.writer.LedgerWriterConvergenceTest.one;
import static dev.tally.persistence.writer.LedgerWriterConvergenceTest.testConfig;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A transfer's metadata, from the ledger's event through the ring and the writer into PostgreSQL, against a real
 * embedded PostgreSQL: the transfers row (jsonb, NULL without), the TransferPosted payload (the object, null
 * without), the reads, and the verifier.
 */
class TransferMetadataTest
{
    /** Transfers in the batch whose every transfer carries the largest metadata. */
    private static final int LARGE_BATCH = 100;

    static PostgresFixture pg;
    static Database db;
    static LedgerScenario s;
    static Result withMetadata;
    static Result plain;
    static Result reversal;
    static Result[] mixedBatch;
    static Result afterFailedBatch;
    static Result[] largeBatch;

    @BeforeAll
    static void postTransfersWithAndWithoutMetadata()
    {
        pg = PostgresFixture.start(TransferMetadataTest.class);
        db = pg.newDatabase();
        try (LedgerWriter writer = LedgerWriter.create(db, testConfig()))
        {
            final EffectRecorder recorder = writer.createRecorder(writer.watermark());
            writer.start();
            s = new LedgerScenario(LedgerConfig.small(), recorder::onUnit);
            ok(s.createAccount(1, 1, false, 0));
            ok(s.createAccount(2, 1, true, 0));
            withMetadata = ok(s.transfer(1, 2, 10_000, "ord-1", METADATA));
            plain = ok(s.transfer(1, 2, 500, "ord-2"));
            reversal = ok(s.reverse(withMetadata, 100));
            mixedBatch = s.batch(true, s.transferCommand(1, 2, 11, null, "{\"n\":\"first\"}"), s.transferCommand(1, 2, 12, null),
                s.transferCommand(1, 2, 13, null, "{\"n\":\"third\",\"ş\":\"ş\"}"));
            final Result[] failed = s.batch(true, s.transferCommand(1, 2, 14, null, "{\"n\":\"failed\"}"),
                s.transferCommand(2, 1, 1_000_000_000L, null));
            assertEquals(ResultCode.LINKED_OPERATION_FAILED, failed[0].code);
            afterFailedBatch = ok(s.transfer(1, 2, 15, null, "{\"n\":\"after\"}"));
            final Command[] large = new Command[LARGE_BATCH];
            for (int k = 0; k < LARGE_BATCH; k++)
            {
                large[k] = s.transferCommand(1, 2, 1_000 + k, null, largestMetadata(k));
            }
            largeBatch = s.batch(true, large);
            for (final Result r : mixedBatch)
            {
                ok(r);
            }
            for (final Result r : largeBatch)
            {
                ok(r);
            }
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
    void shouldStoreATransfersMetadataAsJsonbAndNullWhenItHasNone() throws Exception
    {
        assertEquals("true", stored("metadata = ?::jsonb", withMetadata, METADATA));
        assertEquals("x\"y", stored("metadata->>'a'", withMetadata));
        assertEquals("ü", stored("metadata->>'ş'", withMetadata), "non-ASCII text stays UTF-8, in a key and a value");
        assertEquals("true", stored("metadata IS NULL", plain));
        assertEquals("true", stored("metadata IS NULL", reversal), "a reversal never carries metadata");
    }

    @Test
    void shouldPutTheMetadataObjectInTheTransferPostedPayloadAndNullWhenThereIsNone() throws Exception
    {
        assertEquals("true", payload("payload->'metadata' = ?::jsonb", "TransferPosted", withMetadata, METADATA));
        assertEquals("object", payload("jsonb_typeof(payload->'metadata')", "TransferPosted", withMetadata),
            "the object itself, not a string holding it");
        assertEquals("null", payload("jsonb_typeof(payload->'metadata')", "TransferPosted", plain),
            "present and null, like reference");
        assertEquals("ord-2", payload("payload->>'reference'", "TransferPosted", plain));
        assertEquals("true", payload("payload->'metadata' IS NULL", "TransferReversed", reversal), "no such member");
    }

    @Test
    void shouldReturnTheMetadataFromTheReadsByIdAndByReference() throws Exception
    {
        final LedgerReads reads = new LedgerReads(db.dataSource());
        final TransferRow row = reads.transfer(1, LedgerScenario.transferId(withMetadata)).orElseThrow();
        // jsonb's text form: the same object as the canonical text, spaced and ordered by jsonb
        assertEquals("{\"a\": \"x\\\"y\", \"ş\": \"ü\"}", row.metadata());
        assertEquals(row, reads.transferByReference(1, "ord-1").orElseThrow());
        assertNull(reads.transfer(1, LedgerScenario.transferId(plain)).orElseThrow().metadata());
        assertNull(reads.transferByReference(1, "ord-2").orElseThrow().metadata());
        assertNull(reads.transfer(1, LedgerScenario.transferId(reversal)).orElseThrow().metadata());
    }

    @Test
    void shouldKeepEachTransferOfAnAtomicBatchWithItsOwnMetadata() throws Exception
    {
        assertEquals("{\"n\": \"first\"}", stored("metadata::text", mixedBatch[0]));
        assertNull(stored("metadata::text", mixedBatch[1]));
        assertEquals("{\"n\": \"third\", \"ş\": \"ş\"}", stored("metadata::text", mixedBatch[2]));
        assertEquals("{\"n\": \"first\"}", payload("(payload->'metadata')::text", "TransferPosted", mixedBatch[0]));
        assertEquals("null", payload("(payload->'metadata')::text", "TransferPosted", mixedBatch[1]));
        assertEquals("{\"n\": \"third\", \"ş\": \"ş\"}", payload("(payload->'metadata')::text", "TransferPosted", mixedBatch[2]));
        // the rolled-back batch's metadata is nowhere, and the transfer after it has its own
        assertEquals("{\"n\": \"after\"}", stored("metadata::text", afterFailedBatch));
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement())
        {
            assertEquals(0, one(st, "SELECT count(*) FROM transfers WHERE metadata->>'n' = 'failed'"));
            assertEquals(0, one(st, "SELECT count(*) FROM outbox_events WHERE payload->'metadata'->>'n' = 'failed'"));
        }
    }

    @Test
    void shouldCarryTheLargestMetadataOnEveryTransferOfALargeBatch() throws Exception
    {
        try (Connection c = db.dataSource().getConnection(); PreparedStatement st = c.prepareStatement(
            "SELECT count(*) FROM transfers t JOIN outbox_events o ON o.aggregate_id = t.id::text AND o.event_type = 'TransferPosted'" +
            " WHERE t.journal_index BETWEEN ? AND ? AND t.metadata = o.payload->'metadata'" +
            " AND t.metadata->>'i' = lpad((t.amount_minor - 1000)::text, 3, '0') AND length(t.metadata->>'pad') = ?"))
        {
            st.setLong(1, largeBatch[0].originIndex);
            st.setLong(2, largeBatch[LARGE_BATCH - 1].originIndex);
            st.setInt(3, largestMetadata(0).length() - "{\"i\":\"000\",\"pad\":\"\"}".length());
            try (ResultSet rs = st.executeQuery())
            {
                assertTrue(rs.next());
                assertEquals(LARGE_BATCH, rs.getLong(1), "each transfer has its own 1,024 bytes, in its row and its event");
            }
        }
    }

    @Test
    void shouldVerifyWhichTransfersHaveMetadataAgainstTheLedger() throws Exception
    {
        assertEquals(List.of(), new Verifier(s.ledger, db.dataSource()).verify().differences());
        // A rebuilt ledger (the journal replayed) knows the same: the bit comes from the journaled command.
        assertEquals(List.of(), new Verifier(LedgerScenario.replay(s.journal(), LedgerConfig.small(), effects -> { }),
            db.dataSource()).verify().differences());

        final Database tampered = pg.newDatabase();
        final LedgerScenario t;
        try (LedgerWriter writer = LedgerWriter.create(tampered, testConfig()))
        {
            final EffectRecorder recorder = writer.createRecorder(writer.watermark());
            writer.start();
            t = new LedgerScenario(LedgerConfig.small(), recorder::onUnit);
            ok(t.createAccount(1, 1, false, 0));
            ok(t.createAccount(2, 1, true, 0));
            final Result lost = ok(t.transfer(1, 2, 10, null, METADATA));
            final Result gained = ok(t.transfer(1, 2, 20, null));
            assertTrue(writer.awaitWatermark(t.ledger.lastJournalIndex(), Duration.ofSeconds(30)));
            try (Connection c = tampered.dataSource().getConnection(); Statement st = c.createStatement())
            {
                // Bypass the immutability trigger, as an operator's mistake would.
                st.execute("ALTER TABLE transfers DISABLE TRIGGER transfers_immutable");
                st.execute("UPDATE transfers SET metadata = NULL WHERE id = '" + LedgerScenario.transferId(lost) + "'");
                st.execute("UPDATE transfers SET metadata = '{\"x\":\"y\"}' WHERE id = '" + LedgerScenario.transferId(gained) + "'");
            }
            final List<String> differences = new Verifier(t.ledger, tampered.dataSource()).verify().differences();
            assertEquals(2, differences.size(), differences.toString());
            assertTrue(differences.stream().anyMatch(d -> d.startsWith("transfer at journal index " + lost.originIndex + ":") &&
                d.matches(".*metadata true, PostgreSQL .*metadata false")), differences.toString());
            assertTrue(differences.stream().anyMatch(d -> d.startsWith("transfer at journal index " + gained.originIndex + ":") &&
                d.matches(".*metadata false, PostgreSQL .*metadata true")), differences.toString());
        }
    }

    /** Exactly {@link LedgerLimits#METADATA_LENGTH_MAX} bytes: {"i":"007","pad":"xx…x"}. */
    private static String largestMetadata(final int k)
    {
        final String head = "{\"i\":\"" + String.format("%03d", k) + "\",\"pad\":\"";
        final String json = head + "x".repeat(LedgerLimits.METADATA_LENGTH_MAX - head.length() - 2) + "\"}";
        assertEquals(LedgerLimits.METADATA_LENGTH_MAX, json.getBytes(StandardCharsets.UTF_8).length);
        return json;
    }

    /** @return {@code expression} over the transfer's row as text ("true"/"false", null for SQL NULL); {@code ?}s bind json. */
    private static String stored(final String expression, final Result transfer, final String... json) throws SQLException
    {
        return single("SELECT " + expression + " FROM transfers WHERE id = ?", json, LedgerScenario.transferId(transfer));
    }

    /** @return {@code expression} over the event of that type the transfer's command emitted, as text. */
    private static String payload(final String expression, final String eventType, final Result transfer, final String... json)
        throws SQLException
    {
        return single("SELECT " + expression + " FROM outbox_events WHERE event_type = ? AND journal_index = ?", json, eventType,
            transfer.originIndex);
    }

    private static String single(final String sql, final String[] json, final Object... keys) throws SQLException
    {
        try (Connection c = db.dataSource().getConnection(); PreparedStatement st = c.prepareStatement(sql))
        {
            int p = 1;
            for (final String j : json)
            {
                st.setString(p++, j);
            }
            for (final Object key : keys)
            {
                st.setObject(p++, key);
            }
            try (ResultSet rs = st.executeQuery())
            {
                assertTrue(rs.next(), sql);
                final String value = rs.getMetaData().getColumnType(1) == Types.BIT ? String.valueOf(rs.getBoolean(1)) : rs.getString(1);
                assertFalse(rs.next(), "one row: " + sql);
                return value;
            }
        }
    }

    private static Result ok(final Result r)
    {
        assertEquals(ResultCode.OK, r.code, r::toString);
        return r;
    }
}
