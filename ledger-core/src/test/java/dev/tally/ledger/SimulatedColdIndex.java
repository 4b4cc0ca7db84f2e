package dev.tally.ledger;

import dev.tally.ledger.cold.ColdLookup;
import dev.tally.ledger.cold.ColdSink;
import dev.tally.ledger.cold.ColdSource;
import dev.tally.ledger.command.Command;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The cold index as the ledger's tests see it: maps filled by {@link Ledger#fileCold} a unit at a time, committed behind
 * the ledger (a unit's records become visible, with the watermark at its last index, only when {@link #commitThrough}
 * passes it), and asked by {@link #prepare} as the journal stage asks the real one. What the real one adds (RocksDB,
 * a writer thread, a synced WAL) is tested in the coldindex module; what matters here is the ledger's side of the
 * contract: the lag, the watermark, the lookups riding in the command.
 */
final class SimulatedColdIndex implements ColdSink, ColdSource
{
    private record Key(long hi, long lo)
    {
    }

    private final Map<Key, long[]> keys = new HashMap<>();
    private final Map<Key, long[]> references = new HashMap<>();
    private final Map<Long, long[]> transfers = new HashMap<>();
    private final Map<Long, byte[]> referenceTexts = new HashMap<>();
    private final ArrayDeque<Unit> pending = new ArrayDeque<>();
    private final ColdLookup lookup = new ColdLookup();
    private Unit filling = new Unit();
    private long watermark;

    /** A unit's records, waiting for the writer. */
    private static final class Unit
    {
        long lastIndex;
        final List<Runnable> puts = new ArrayList<>();
    }

    /** Stamps the command with the watermark and what the index holds for it, as the journal stage does. */
    void prepare(final Command c)
    {
        lookup.prepare(c, watermark, this);
    }

    /** Closes the unit whose records were just filed ({@link Ledger#fileCold}), ending at {@code lastIndex}. */
    void endUnit(final long lastIndex)
    {
        filling.lastIndex = lastIndex;
        pending.addLast(filling);
        filling = new Unit();
    }

    /** The writer commits every closed unit ending at or below {@code index}, and the watermark moves to the last. */
    void commitThrough(final long index)
    {
        while (!pending.isEmpty() && pending.peekFirst().lastIndex <= index)
        {
            final Unit unit = pending.removeFirst();
            unit.puts.forEach(Runnable::run);
            watermark = unit.lastIndex;
        }
    }

    long watermark()
    {
        return watermark;
    }

    int keyCount()
    {
        return keys.size();
    }

    @Override
    public void key(final long digestHi, final long digestLo, final long[] record)
    {
        final long[] copy = record.clone();
        filling.puts.add(() -> keys.put(new Key(digestHi, digestLo), copy));
    }

    @Override
    public void reference(final long digestHi, final long digestLo, final long transferIndex, final long timestampNs)
    {
        filling.puts.add(() -> references.put(new Key(digestHi, digestLo), new long[] {transferIndex, timestampNs}));
    }

    @Override
    public void transfer(final long journalIndex, final long[] record)
    {
        final long[] copy = record.clone();
        filling.puts.add(() -> transfers.put(journalIndex, copy));
    }

    @Override
    public void transferReference(final long journalIndex, final byte[] text, final int length)
    {
        final byte[] copy = java.util.Arrays.copyOf(text, length);
        filling.puts.add(() -> referenceTexts.put(journalIndex, copy));
    }

    @Override
    public int findTransferReference(final long journalIndex, final byte[] into)
    {
        final byte[] text = referenceTexts.get(journalIndex);
        if (text == null)
        {
            return 0;
        }
        System.arraycopy(text, 0, into, 0, text.length);
        return text.length;
    }

    @Override
    public boolean findKey(final long digestHi, final long digestLo, final long[] into)
    {
        return copy(keys.get(new Key(digestHi, digestLo)), into);
    }

    @Override
    public boolean findReference(final long digestHi, final long digestLo, final long[] into)
    {
        return copy(references.get(new Key(digestHi, digestLo)), into);
    }

    @Override
    public boolean findTransfer(final long journalIndex, final long[] into)
    {
        return copy(transfers.get(journalIndex), into);
    }

    private static boolean copy(final long[] found, final long[] into)
    {
        if (found == null)
        {
            return false;
        }
        System.arraycopy(found, 0, into, 0, found.length);
        return true;
    }
}
