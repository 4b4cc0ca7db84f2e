package dev.tally.ledger;

import dev.tally.ledger.image.StateImage;
import dev.tally.ledger.query.AccountView;
import dev.tally.ledger.query.HoldView;
import dev.tally.ledger.query.TransferView;
import dev.tally.ledger.result.Result;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What other threads and tools see of a ledger without its tables: the figures it publishes, and the read-only
 * queries over every account, live hold and in-memory transfer.
 */
class LedgerStatsTest
{
    private static final long FUNDING = 1;
    private static final long ALICE = 2;

    private final LedgerDriver d = new LedgerDriver();
    private final Commands cmd = d.commands;

    @Test
    void shouldPublishTheFiguresOnlyWhenAsked()
    {
        final LedgerStats stats = d.ledger.stats();
        assertEquals(0, stats.accountCount(), "published when built");
        assertEquals(LedgerDriver.CONFIG, stats.config());

        d.apply(cmd.createFundingAccount("open-funding", FUNDING));
        d.apply(cmd.createHotAccount("open-alice", ALICE, 3));
        final Result posted = d.apply(cmd.transfer("pay", FUNDING, ALICE, 500, "inv-1"));
        assertEquals(0, stats.accountCount(), "nothing until the applying thread publishes");

        assertSame(stats, d.ledger.publishStats());
        assertEquals(posted.originIndex, stats.lastJournalIndex());
        assertEquals(posted.originTimestampNs, stats.nowNs());
        assertEquals(3, stats.commandsApplied());
        assertEquals(1, stats.transfersPosted());
        assertEquals(1, stats.hotAccountMoves());
        assertEquals(2, stats.accountCount());
        assertEquals(4, stats.subBalanceCount());
        assertEquals(3, stats.idempotencyKeyCount());
        assertEquals(1, stats.referenceCount());
        assertEquals(1, stats.transferCount());
        assertEquals(0, stats.holdCount());
    }

    @Test
    void shouldPublishTheOldestUnknownHoldAndItsAge()
    {
        d.apply(cmd.createFundingAccount("open-funding", FUNDING));
        final Result first = d.apply(cmd.hold("hold-1", FUNDING, 10, 60_000));
        final Result second = d.apply(cmd.hold("hold-2", FUNDING, 20, 60_000));
        d.apply(cmd.hold("hold-3", FUNDING, 30, 60_000));
        d.apply(cmd.markUnknown("unknown-2", second));
        d.apply(cmd.markUnknown("unknown-1", first));
        d.apply(cmd.advanceMs(5_000).tick(0));

        LedgerStats stats = d.ledger.publishStats();
        assertEquals(3, stats.holdCount());
        assertEquals(2, stats.unknownHoldCount());
        assertEquals(1, stats.activeHoldCount());
        assertEquals(first.originTimestampNs, stats.oldestUnknownHoldTimestampNs(), "the oldest, not the first marked");
        assertEquals(stats.nowNs() - first.originTimestampNs, stats.oldestUnknownHoldAgeNs());

        d.apply(cmd.voidHold("void-1", first));
        stats = d.ledger.publishStats();
        assertEquals(second.originTimestampNs, stats.oldestUnknownHoldTimestampNs());

        d.apply(cmd.voidHold("void-2", second));
        stats = d.ledger.publishStats();
        assertEquals(0, stats.oldestUnknownHoldTimestampNs());
        assertEquals(0, stats.oldestUnknownHoldAgeNs(), "none unknown");
    }

    @Test
    void shouldPublishWhenRestoredAndAtTheEndOfAReplay()
    {
        d.apply(cmd.createFundingAccount("open-funding", FUNDING));
        d.apply(cmd.createAccount("open-alice", ALICE));
        final StateImage image = new StateImage();
        d.ledger.copyTo(image);

        final Ledger restored = Ledger.restore(LedgerDriver.CONFIG, image);
        assertEquals(2, restored.stats().accountCount());

        restored.apply(cmd.transfer("pay", FUNDING, ALICE, 5));
        restored.endReplay();
        assertEquals(1, restored.stats().transferCount());
    }

    @Test
    void shouldPublishWithoutAllocating()
    {
        d.apply(cmd.createFundingAccount("open-funding", FUNDING));
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        for (int i = 0; i < 20_000; i++)
        {
            d.ledger.publishStats();
        }
        // The fewest bytes of three rounds: on a loaded machine the JIT may still be compiling the loop during the first,
        // and the code it runs meanwhile allocates a little; the compiled loop must allocate nothing.
        long allocated = Long.MAX_VALUE;
        for (int round = 0; round < 3 && allocated >= 1_024; round++)
        {
            final long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 100_000; i++)
            {
                d.ledger.publishStats();
            }
            allocated = Math.min(allocated, threads.getCurrentThreadAllocatedBytes() - before);
        }
        assertTrue(allocated < 1_024, "bytes allocated by 100,000 publications, the least of three rounds: " + allocated);
    }

    @Test
    void shouldShowEveryAccountHoldAndTransferThroughTheReadOnlyQueries()
    {
        d.apply(cmd.createFundingAccount("open-funding", FUNDING));
        d.apply(cmd.createAccount(
            "open-alice", ALICE, Commands.USD, 1, true, 70));
        final Result posted = d.apply(cmd.transfer("pay", FUNDING, ALICE, 500, "inv-1"));
        final Result hold = d.apply(cmd.hold("hold", ALICE, 200, 60_000));
        d.apply(cmd.markUnknown("unknown", hold));

        final List<String> accounts = new ArrayList<>();
        d.ledger.forEachAccount(a -> accounts.add(a.tenantId + "/" + a.accountId + " " + a.postedTotal() + "/" + a.heldTotal() +
            " " + a.debitsMustNotExceedCredits + " " + a.overdraftLimitMinor + " " + a.availableTotal()));
        assertEquals(List.of("1/1 -500/0 false 0 -500", "1/2 500/200 true 70 300"), accounts);

        final List<HoldView> holds = new ArrayList<>();
        d.ledger.forEachLiveHold(h -> holds.add(copy(h)));
        assertEquals(1, holds.size());
        assertEquals(hold.originIndex, holds.get(0).journalIndex);
        assertEquals(ALICE, holds.get(0).accountId);
        assertEquals(200, holds.get(0).amountMinor);
        assertTrue(holds.get(0).unknown);

        final TransferView transfer = d.ledger.readTransferAt(posted.originIndex, new TransferView());
        assertTrue(transfer.found);
        assertEquals("inv-1", transfer.referenceText());
        assertEquals(FUNDING, transfer.debitAccountId);
        assertEquals(1, transfer.tenantId);
        assertFalse(d.ledger.readTransferAt(posted.originIndex + 1, new TransferView()).found, "a hold is no transfer");

        final AccountView other = d.ledger.readAccount(ALICE, 2, new AccountView());
        assertFalse(other.found, "another tenant's id");
    }

    private static HoldView copy(final HoldView h)
    {
        final HoldView copy = new HoldView();
        copy.journalIndex = h.journalIndex;
        copy.accountId = h.accountId;
        copy.amountMinor = h.amountMinor;
        copy.unknown = h.unknown;
        return copy;
    }
}
