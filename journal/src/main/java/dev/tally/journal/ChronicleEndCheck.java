package dev.tally.journal;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueStore;
import net.openhft.chronicle.wire.DocumentContext;
import net.openhft.chronicle.wire.Wires;

/**
 * Asks Chronicle's own bookkeeping whether a forward read that stopped really reached the end of the journal.
 *
 * <p>A forward read stops at the first document header it cannot take: the blank one after the last document, or one a
 * writer has not finished. A damaged header in the middle of a file (a page of zeros, say) looks exactly like the first:
 * the read ends early, in order and with intact records, and nothing in the records themselves says so. Two witnesses
 * outside the document headers say otherwise:
 * <ul>
 *   <li>the cycle file's header keeps the <em>write position</em>, where the last document appended starts. When it lies
 *   at or past the point the read stopped, the walk over the headers from there to it must meet only complete metadata
 *   (Chronicle's index arrays), the end-of-file marker, or, at the write position itself, a document still being written
 *   (a crashed or live writer's). A blank header or a complete data document on the way means documents the read cannot
 *   reach;</li>
 *   <li>a later cycle file that holds a document: the read would have moved on to it at the end-of-file marker.</li>
 * </ul>
 *
 * <p>The write position is forced with the data (the journal forces the whole file), so under {@code SYNC} it is never
 * behind what was acknowledged. It can be ahead after a power loss (the header page written back, the page of the last,
 * unforced, unacknowledged documents not): that case is refused too, because it cannot be told from damage to forced
 * documents, and because Chronicle would append after the write position, past the blank, where no read reaches
 * (docs/JOURNAL.md, "What distinguishes a torn write from damage").
 */
final class ChronicleEndCheck
{
    private ChronicleEndCheck()
    {
    }

    /**
     * @param queue         the queue read.
     * @param cycle         the cycle file the read stopped in.
     * @param stopPosition  the file position just past the last document the read took in that cycle (0: none).
     * @param tailer        a tailer to probe later cycles with (its position is changed).
     * @return null when the read reached the end Chronicle knows of; otherwise what lies beyond, in words.
     */
    static String beyond(final SingleChronicleQueue queue, final int cycle, final long stopPosition, final ExcerptTailer tailer)
    {
        final String inCycle = beyondInCycle(queue, cycle, stopPosition);
        return inCycle != null ? inCycle : laterCycleWithDocuments(queue, cycle, tailer);
    }

    private static String beyondInCycle(final SingleChronicleQueue queue, final int cycle, final long stopPosition)
    {
        final SingleChronicleQueueStore store = queue.storeForCycle(cycle, queue.epoch(), false, null);
        if (store == null)
        {
            return null;
        }
        try
        {
            final long writePosition = store.writePosition();
            final Bytes<?> bytes = store.bytes();
            long position = alignHeader(stopPosition);
            while (position <= writePosition && position + Wires.SPB_HEADER_SIZE <= bytes.realCapacity())
            {
                final int header = bytes.readVolatileInt(position);
                if (header == Wires.END_OF_DATA)
                {
                    return null;
                }
                if (Wires.isNotInitialized(header))
                {
                    return where(store, position, writePosition, "a blank document header");
                }
                if (Wires.isNotComplete(header))
                {
                    return position == writePosition ? null :
                        where(store, position, writePosition, "a document still being written before the last one");
                }
                if (!Wires.isReadyMetaData(header))
                {
                    return where(store, position, writePosition, "a document the read did not take");
                }
                position = alignHeader(position + Wires.SPB_HEADER_SIZE + Wires.lengthOf(header));
            }
            return null;
        }
        finally
        {
            queue.closeStore(store);
        }
    }

    private static String laterCycleWithDocuments(final SingleChronicleQueue queue, final int cycle, final ExcerptTailer tailer)
    {
        if (queue.lastCycle() <= cycle)
        {
            return null;
        }
        for (final Long later : queue.listCyclesBetween(cycle + 1, queue.lastCycle()))
        {
            if (tailer.moveToCycle(later.intValue()))
            {
                try (DocumentContext dc = tailer.readingDocument())
                {
                    if (dc.isPresent())
                    {
                        return "the read stopped in cycle " + cycle + " but the later cycle file " + later +
                            " holds documents (index " + Long.toHexString(dc.index()) + ")";
                    }
                }
            }
        }
        return null;
    }

    private static String where(final SingleChronicleQueueStore store, final long position, final long writePosition, final String what)
    {
        return "the read stopped at byte " + position + " of " + store.file().getName() + " at " + what +
            ", but Chronicle's header of that file puts its last document at byte " + writePosition;
    }

    /** Chronicle starts every document header on a 4-byte boundary. */
    private static long alignHeader(final long position)
    {
        return (position + Wires.SPB_HEADER_SIZE - 1) & -Wires.SPB_HEADER_SIZE;
    }
}
