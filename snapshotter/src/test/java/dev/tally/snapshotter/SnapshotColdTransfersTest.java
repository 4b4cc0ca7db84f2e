package dev.tally.snapshotter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.tally.ledger.Ledger;
import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.StateDigest;
import dev.tally.ledger.cold.ColdLookup;
import dev.tally.ledger.cold.ColdSink;
import dev.tally.ledger.cold.ColdSource;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.currency.CurrencyCode;
import dev.tally.ledger.id.Uuid7;
import dev.tally.ledger.image.StateImage;
import dev.tally.ledger.query.TransferView;
import dev.tally.ledger.result.Result;
import dev.tally.ledger.result.ResultCode;
import dev.tally.ledger.transfer.ColdTransfers;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A ledger whose reversals left records in its cold transfers (a transfer memory had let go, brought back from the
 * cold index, and one still in memory) goes through a snapshot file and comes back with the same state hash, and then
 * answers the same commands the same way: the snapshot's cold transfer section, end to end.
 */
class SnapshotColdTransfersTest
{
    /** Four transfers in memory: a fifth lets the oldest go once the cold index holds it. */
    private static final LedgerConfig CONFIG = new LedgerConfig(8, 16, 1_024, 64, 4, 8, 60_000, 60_000, 60_000, 100);
    private static final long START_NS = 1_767_225_600_000_000_000L;
    private static final long TENANT = 1;
    private static final int USD = CurrencyCode.pack("USD");
    private static final long FUNDING = 1;
    private static final long SHOP = 2;

    @TempDir
    Path dir;

    private final InstantColdIndex cold = new InstantColdIndex();
    private final Ledger ledger = new Ledger(CONFIG);
    private long journalIndex;
    private long nextKey;

    @Test
    void shouldRestoreColdTransfersWithTheSameStateHashAndAnswerAsTheLedgerItWasCopiedFrom() throws Exception
    {
        apply(account(FUNDING, false));
        apply(account(SHOP, true));
        final List<Command> transfers = new ArrayList<>();
        for (int i = 0; i < 6; i++)
        {
            transfers.add(apply(transfer(100)));
        }
        assertFalse(ledger.readTransferAt(transfers.get(0).journalIndex, new TransferView()).found, "let go: the cold index holds it");

        cold.holdBack();   // the cold index falls behind: what the reversals below leave is not in it yet
        assertReversed(30, applyStamped(stamp(reverse(transfers.get(0), 30))));   // found in the cold index, brought back
        assertReversed(10, applyStamped(stamp(reverse(transfers.get(5), 10))));   // still in memory
        final Ledger restored = throughASnapshotFile(2);
        assertEquals(ledger.stateHash(), restored.stateHash());

        // The rest of the first transfer: the cold index still answers with it unreversed, so only the record brought
        // back, restored from the file, says 70 are left.
        final Command rest = reverse(transfers.get(0), 0);
        assertReversed(70, applyToBoth(rest, restored));
        cold.catchUp();
        applyToBoth(reverse(transfers.get(0), 0), restored);      // nothing left
        applyToBoth(reverse(transfers.get(1), 0), restored);      // from the cold index
        applyToBoth(reverse(transfers.get(5), 0), restored);      // the rest of the one in memory
        for (int i = 0; i < 4; i++)
        {
            applyToBoth(transfer(10 + i), restored);
        }
    }

    /** Copies the ledger, writes the copy to a file, reads it back and restores a new ledger from it. */
    private Ledger throughASnapshotFile(final int coldTransfersExpected) throws IOException, SnapshotCorruptException
    {
        final StateImage image = new StateImage();
        ledger.copyTo(image);
        assertEquals(coldTransfersExpected * ColdTransfers.STRIDE, image.coldTransfers().length());
        final Path file = dir.resolve("cold.tsnap");
        try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE))
        {
            new SnapshotFormat().write(image, image.stateHash(), out);
        }
        final StateImage read = new StateImage();
        try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ))
        {
            assertEquals(ledger.stateHash(), new SnapshotFormat().read(in, read).stateHash());
        }
        assertEquals(image.coldTransfers().length(), read.coldTransfers().length());
        return Ledger.restore(CONFIG, read);
    }

    private static void assertReversed(final long amountMinor, final Result r)
    {
        assertEquals(ResultCode.OK, r.code, r::toString);
        assertEquals(amountMinor, r.amountMinor, r::toString);
    }

    /** Stamps, lets the cold index answer, applies and files one command. */
    private Command apply(final Command c)
    {
        final Result r = applyStamped(stamp(c));
        assertEquals(ResultCode.OK, r.code, r::toString);
        return c;
    }

    /** Applies one command to the ledger and to {@code other}: the same result and state hash after it. */
    private Result applyToBoth(final Command c, final Ledger other)
    {
        final Result r = applyStamped(stamp(c));
        JournaledRun.assertSameResult(r, other.apply(c));
        assertEquals(ledger.stateHash(), other.stateHash(), "state hash after journal index " + c.journalIndex);
        return r;
    }

    private Command stamp(final Command c)
    {
        c.journalIndex = ++journalIndex;
        c.timestampNs = START_NS + journalIndex * 1_000_000L;
        cold.prepare(c);
        return c;
    }

    private Result applyStamped(final Command c)
    {
        final Result r = ledger.apply(c);
        ledger.fileCold(cold);
        cold.endUnit(c.journalIndex);
        return r;
    }

    private Command account(final long accountId, final boolean debitsMustNotExceedCredits)
    {
        final Command c = keyed(CommandType.CREATE_ACCOUNT);
        c.accountId = accountId;
        c.currency = USD;
        c.subBalances = 1;
        c.debitsMustNotExceedCredits = debitsMustNotExceedCredits;
        return c;
    }

    private Command transfer(final long amountMinor)
    {
        final Command c = keyed(CommandType.TRANSFER);
        c.debitAccountId = FUNDING;
        c.creditAccountId = SHOP;
        c.currency = USD;
        c.amountMinor = amountMinor;
        return c;
    }

    /** Reverses {@code amountMinor} of the transfer {@code original} created (0: all that is left). */
    private Command reverse(final Command original, final long amountMinor)
    {
        final Command c = Workload.aimedAt(keyed(CommandType.REVERSE_TRANSFER), original.journalIndex, original.timestampNs,
            Uuid7.KIND_TRANSFER);
        c.amountMinor = amountMinor;
        c.currency = amountMinor == 0 ? 0 : USD;
        return c;
    }

    private Command keyed(final CommandType type)
    {
        final Command c = new Command();
        c.type = type;
        c.tenantId = TENANT;
        c.keyHi = StateDigest.mix(++nextKey);
        c.keyLo = StateDigest.mix(~nextKey);
        c.fingerprintHi = StateDigest.mix(nextKey * 31);
        c.fingerprintLo = StateDigest.mix(c.fingerprintHi);
        return c;
    }

    /**
     * The cold index, for transfers only (keys and references never leave this ledger's memory): what a unit filed is
     * committed at its end, and the watermark moves with it, unless held back; then it waits for {@link #catchUp}.
     */
    private static final class InstantColdIndex implements ColdSink, ColdSource
    {
        private final ColdLookup lookup = new ColdLookup();
        private final Map<Long, long[]> committed = new HashMap<>();
        private final Map<Long, long[]> pending = new HashMap<>();
        private long watermark;
        private long filedThrough;
        private boolean heldBack;

        void prepare(final Command c)
        {
            lookup.prepare(c, watermark, this);
        }

        void endUnit(final long lastIndex)
        {
            filedThrough = lastIndex;
            if (!heldBack)
            {
                catchUp();
            }
        }

        void holdBack()
        {
            heldBack = true;
        }

        void catchUp()
        {
            heldBack = false;
            committed.putAll(pending);
            pending.clear();
            watermark = filedThrough;
        }

        @Override
        public void key(final long digestHi, final long digestLo, final long[] record)
        {
        }

        @Override
        public void reference(final long digestHi, final long digestLo, final long transferIndex, final long timestampNs)
        {
        }

        @Override
        public void transfer(final long journalIndex, final long[] record)
        {
            pending.put(journalIndex, record.clone());
        }

        @Override
        public void transferReference(final long journalIndex, final byte[] text, final int length)
        {
            // reads of transfers are not this test's
        }

        @Override
        public int findTransferReference(final long journalIndex, final byte[] into)
        {
            return 0;
        }

        @Override
        public boolean findKey(final long digestHi, final long digestLo, final long[] into)
        {
            return false;
        }

        @Override
        public boolean findReference(final long digestHi, final long digestLo, final long[] into)
        {
            return false;
        }

        @Override
        public boolean findTransfer(final long journalIndex, final long[] into)
        {
            final long[] found = committed.get(journalIndex);
            if (found != null)
            {
                System.arraycopy(found, 0, into, 0, LedgerLimits.COLD_TRANSFER_LONGS);
            }
            return found != null;
        }
    }
}
