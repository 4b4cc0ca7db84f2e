package dev.tally.ledger.cold;

import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.id.Uuid7;

/**
 * What the journal stage asks the cold index about a command before journaling it, and how the answers ride in the
 * command: the ledger never reads the cold index itself, so a replay decides exactly as the first run did.
 *
 * <p>The watermark {@code W} is read before the lookups. Every item the ledger filed with a journal index up to {@code W}
 * is in the index, and the ledger lets an item leave its memory only at or below the watermark its command carries; so
 * whatever memory has let go by the time this command applies, the index had when it was asked:
 * <ul>
 *   <li>the idempotency key of every keyed command ({@link Command#coldKeyFound});</li>
 *   <li>the reference of every transfer that names one ({@link Command#referenceTaken}, with the holder's id);</li>
 *   <li>the transfer a reversal names, when its index is at or below {@code W} (a newer one is still in memory).</li>
 * </ul>
 * One per thread (it keeps a scratch array); allocation-free.
 */
public final class ColdLookup
{
    private final long[] reference = new long[2];

    /**
     * Adds what {@link #prepare} will look up for {@code c} to {@code asks}: the same conditions, so that a source that
     * answers them together ({@link ColdSource#prefetch}) is asked for exactly what follows. A reversal's transfer is
     * not prefetched (rare, and known only once its index is compared with the watermark).
     *
     * @return false when {@code asks} had no room for it (nothing was added).
     */
    public static boolean ask(final Command c, final long watermark, final ColdAsks asks)
    {
        if (c.type == null || !c.type.isKeyed() || watermark == 0)
        {
            return true;
        }
        if (!asks.hasRoom())
        {
            return false;
        }
        asks.addKey(c.keyHi, c.keyLo);
        if (c.type == CommandType.TRANSFER && c.hasReference() && !c.referenceTaken)
        {
            asks.addReference(c.referenceHi, c.referenceLo);
        }
        return true;
    }

    /**
     * Stamps {@code c} with the watermark and looks up what it needs.
     *
     * @throws RuntimeException whatever the source throws: the caller marks the command {@link Command#coldUnchecked}.
     */
    public void prepare(final Command c, final long watermark, final ColdSource source)
    {
        c.coldWatermark = watermark;
        if (c.type == null || !c.type.isKeyed() || watermark == 0)
        {
            return;
        }
        c.coldKeyFound = source.findKey(c.keyHi, c.keyLo, c.coldKey);
        if (c.type == CommandType.TRANSFER && c.hasReference() && !c.referenceTaken &&
            source.findReference(c.referenceHi, c.referenceLo, reference))
        {
            c.referenceTaken = true;
            c.targetIdHi = Uuid7.hi(reference[1], Uuid7.KIND_TRANSFER);
            c.targetIdLo = Uuid7.lo(reference[0], 0);
        }
        if (c.type == CommandType.REVERSE_TRANSFER)
        {
            final long original = Uuid7.journalIndex(c.targetIdHi, c.targetIdLo);
            if (original > 0 && original <= watermark)
            {
                c.coldTransferFound = source.findTransfer(original, c.coldTransfer);
            }
        }
    }
}
