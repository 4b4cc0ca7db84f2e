package dev.tally.persistence.read;

import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.result.Result;
import dev.tally.persistence.LedgerScenario;
import dev.tally.persistence.PostgresFixture;
import dev.tally.persistence.db.Database;
import dev.tally.persistence.writer.EffectRecorder;
import dev.tally.persistence.writer.LedgerWriter;
import dev.tally.persistence.writer.WriterConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The gateway's PostgreSQL reads: keyset pages of an account's entries, transfers by id and by reference. */
class LedgerReadsTest
{
    static PostgresFixture pg;
    static Database db;
    static LedgerReads reads;
    static Result invoice;
    static Result reversal;
    static final int TRANSFERS = 25;

    @BeforeAll
    static void writeSomeHistory()
    {
        pg = PostgresFixture.start(LedgerReadsTest.class);
        db = pg.newDatabase();
        reads = new LedgerReads(db.dataSource());
        try (LedgerWriter writer = LedgerWriter.create(db, WriterConfig.defaults().withRing(1 << 20, 100_000)))
        {
            final EffectRecorder recorder = writer.createRecorder(writer.watermark());
            writer.start();
            final LedgerScenario s = new LedgerScenario(LedgerConfig.small(), recorder::onUnit);
            s.createAccount(1, 1, false, 0);
            s.createAccount(2, 1, true, 0);
            invoice = s.transfer(1, 2, 10_000, "inv-\"quoted\"\\1");
            for (int i = 1; i < TRANSFERS; i++)
            {
                s.transfer(1, 2, i, null);
            }
            reversal = s.reverse(invoice, 2_500);
            s.tenant(2).createAccount(2, 1, false, 0);   // the same account id in another tenant
            s.createAccount(3, 1, false, 0);
            s.transfer(2, 3, 7, null);
            assertTrue(writer.awaitWatermark(s.ledger.lastJournalIndex(), Duration.ofSeconds(30)));
        }
    }

    @AfterAll
    static void stopPostgres()
    {
        pg.close();
    }

    @Test
    void shouldPageAnAccountsEntriesInIdOrderWithoutGapsOrRepeats() throws Exception
    {
        final List<EntryRow> all = new ArrayList<>();
        UUID after = null;
        int pages = 0;
        while (true)
        {
            final List<EntryRow> page = reads.entries(1, 2, after, 4);
            pages++;
            all.addAll(page);
            if (page.size() < 4)
            {
                break;
            }
            after = page.get(page.size() - 1).id();
        }
        assertEquals(TRANSFERS + 1, all.size(), "every credit plus the reversal's debit");
        assertEquals(7, pages);
        for (int i = 1; i < all.size(); i++)
        {
            assertTrue(all.get(i - 1).id().compareTo(all.get(i).id()) < 0, "ids strictly increase");
        }
        assertEquals(10_000, all.get(0).amountMinor());
        assertEquals(LedgerScenario.transferId(invoice), all.get(0).transferId());
        assertEquals(-2_500, all.get(all.size() - 1).amountMinor(), "the reversal debits account 2");
        assertEquals("USD", all.get(0).currency());
        long sum = 0;
        for (final EntryRow e : all)
        {
            assertEquals(1, e.tenantId());
            sum += e.amountMinor();
            assertEquals(sum, e.balanceAfterMinor(), "the running balance the business thread recorded, entry " + e.id());
            assertEquals(e == all.get(all.size() - 1) ? "reversal" : "transfer", e.kind());
        }
        assertEquals(10_000 + (TRANSFERS - 1) * TRANSFERS / 2 - 2_500, sum);
    }

    @Test
    void shouldShowNoEntriesOfAnotherTenantsAccount() throws Exception
    {
        assertEquals(1, reads.entries(2, 2, null, 100).size(), "tenant 2's account 2 has its own single entry");
        assertEquals(0, reads.entries(3, 2, null, 100).size());
        assertThrows(IllegalArgumentException.class, () -> reads.entries(1, 2, null, 0));
        assertThrows(IllegalArgumentException.class, () -> reads.entries(1, 2, null, LedgerReads.ENTRIES_PAGE_MAX + 1));
    }

    @Test
    void shouldReadATransferByIdOnlyForItsTenant() throws Exception
    {
        final TransferRow row = reads.transfer(1, LedgerScenario.transferId(invoice)).orElseThrow();
        assertEquals("transfer", row.kind());
        assertEquals(1, row.debitAccountId());
        assertEquals(2, row.creditAccountId());
        assertEquals(10_000, row.amountMinor());
        assertEquals("inv-\"quoted\"\\1", row.reference());
        assertEquals(2_500, row.reversedMinor());
        assertEquals(invoice.originIndex, row.journalIndex());
        assertTrue(reads.transfer(2, LedgerScenario.transferId(invoice)).isEmpty(), "another tenant's transfer is not found");

        final TransferRow back = reads.transfer(1, LedgerScenario.transferId(reversal)).orElseThrow();
        assertEquals("reversal", back.kind());
        assertEquals(LedgerScenario.transferId(invoice), back.reversesId());
    }

    @Test
    void shouldFindATransferByItsReference() throws Exception
    {
        assertEquals(LedgerScenario.transferId(invoice), reads.transferByReference(1, "inv-\"quoted\"\\1").orElseThrow().id());
        assertTrue(reads.transferByReference(2, "inv-\"quoted\"\\1").isEmpty());
    }

    @Test
    void shouldEscapeTheReferenceInTheEventPayload() throws Exception
    {
        try (var c = db.dataSource().getConnection(); var st = c.createStatement();
             var rs = st.executeQuery("SELECT payload->>'reference', payload->>'amount', payload->>'transferId' FROM outbox_events" +
                 " WHERE event_type = 'TransferPosted' AND journal_index = " + invoice.originIndex))
        {
            assertTrue(rs.next());
            assertEquals("inv-\"quoted\"\\1", rs.getString(1));
            assertEquals("100.00", rs.getString(2));
            assertEquals(LedgerScenario.transferId(invoice).toString(), rs.getString(3));
        }
    }
}
