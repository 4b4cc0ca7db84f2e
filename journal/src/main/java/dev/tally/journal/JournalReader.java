package dev.tally.journal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableSet;

import dev.tally.ledger.command.Command;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.TailerDirection;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.wire.DocumentContext;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Reads the journal in order, checks every record (checksum, gap-free strictly increasing index,
 * non-decreasing time) and hands the commands after a given index to a consumer.
 *
 * <p>A replay never skips silently. It stops at the last good record when the journal ends with
 * unreadable records ({@link ReplayStatus#TORN_TAIL}) or breaks before its end
 * ({@link ReplayStatus#CORRUPT}), and crosses a region that an earlier open already cut with a recovery
 * marker, counting what it skipped. The {@link ReplayResult} says which, with the counts.
 *
 * <p>Seeking: a replay from index {@code n > 0} starts at the newest cycle file whose first record is
 * at or before {@code n + 1}, then scans forward (decoding and checking, not delivering) to it. The cost
 * is at most one cycle file of scanning, which is what makes the hourly roll cycle matter at restart.
 *
 * <p>Not thread-safe: one thread at a time (decode buffers and the command holder are reused).
 */
public final class JournalReader implements AutoCloseable
{
    static
    {
        JournalQueues.disableAnalytics();
    }

    private static final long NO_ANCHOR = Long.MIN_VALUE;
    private static final CommandConsumer IGNORE = command -> { };

    private final SingleChronicleQueue queue;
    private final boolean ownsQueue;
    private final CommandCodec codec = new CommandCodec();
    private final RecoveryMarkerCodec markerCodec = new RecoveryMarkerCodec();
    private final byte[] recordBytes = new byte[CommandCodec.ENCODED_LENGTH_MAX];
    private final UnsafeBuffer recordBuffer = new UnsafeBuffer(recordBytes);
    private final Command command = new Command();
    private long probedFirstIndex;
    private boolean lastWasMarker;

    JournalReader(final SingleChronicleQueue queue, final boolean ownsQueue)
    {
        this.queue = queue;
        this.ownsQueue = ownsQueue;
    }

    /**
     * Opens the journal in {@code directory} for reading only (a tool, a verifier). A missing or empty
     * directory reads as an empty journal.
     */
    public static JournalReader open(final Path directory)
    {
        if (!Files.isDirectory(directory))
        {
            return new JournalReader(null, false);
        }
        return new JournalReader(JournalQueues.openReadOnly(directory), true);
    }

    /**
     * Replays every command with a journal index above {@code fromIndexExclusive}, in order, into
     * {@code consumer}, checking the whole sequence it reads.
     *
     * @param fromIndexExclusive 0 to replay everything; otherwise the last index already applied (the
     *                           snapshot's index).
     * @return how the scan ended; commands were delivered only while the sequence was intact.
     */
    public ReplayResult replay(final long fromIndexExclusive, final CommandConsumer consumer)
    {
        if (fromIndexExclusive < 0)
        {
            throw new IllegalArgumentException("fromIndexExclusive must be >= 0: " + fromIndexExclusive);
        }
        final SequenceTracker tracker = new SequenceTracker();
        if (null == queue)
        {
            tracker.startAt(0, 0);
            return tracker.result(0);
        }
        try (ExcerptTailer tailer = queue.createTailer())
        {
            final long anchor = fromIndexExclusive == 0 ? NO_ANCHOR : findCycleAnchor(tailer, fromIndexExclusive + 1);
            positionAt(tailer, tracker, anchor);
            return scan(tailer, tracker, fromIndexExclusive, consumer);
        }
    }

    /** @return every cycle file of the journal, oldest first, with the first journal index in each. */
    public List<JournalCycleFile> cycleFiles()
    {
        final List<JournalCycleFile> files = new ArrayList<>();
        if (null == queue || queue.firstCycle() > queue.lastCycle())
        {
            return files;
        }
        final RollCycle rollCycle = queue.rollCycle();
        final DateTimeFormatter format = DateTimeFormatter.ofPattern(rollCycle.format()).withZone(ZoneOffset.UTC);
        final NavigableSet<Long> cycles = queue.listCyclesBetween(queue.firstCycle(), queue.lastCycle());
        try (ExcerptTailer tailer = queue.createTailer())
        {
            for (final Long cycleNumber : cycles)
            {
                final int cycle = cycleNumber.intValue();
                final long cycleStartMs = (long)cycle * rollCycle.lengthInMillis();
                final Path path = queue.file().toPath()
                    .resolve(format.format(Instant.ofEpochMilli(cycleStartMs)) + ".cq4");
                final long firstIndex = probeFirstRecord(tailer, cycle) == NO_ANCHOR ? 0 : probedFirstIndex;
                files.add(new JournalCycleFile(cycle, path, firstIndex));
            }
        }
        return files;
    }

    /**
     * Checks the end of the journal: reads back at least {@code windowRecordCount} records (more when
     * they are unreadable, until a good one), then scans forward from the oldest good one to the end.
     * Falls back to a scan of the whole journal when the window starts inside an earlier cut region.
     */
    ReplayResult scanTail(final int windowRecordCount)
    {
        final long anchor = findTailAnchor(windowRecordCount);
        ReplayResult result = scanFrom(anchor);
        if (ReplayStatus.CORRUPT == result.status() && NO_ANCHOR != anchor)
        {
            result = scanFrom(NO_ANCHOR);
        }
        return result;
    }

    private ReplayResult scanFrom(final long anchor)
    {
        final SequenceTracker tracker = new SequenceTracker();
        try (ExcerptTailer tailer = queue.createTailer())
        {
            positionAt(tailer, tracker, anchor);
            return scan(tailer, tracker, Long.MAX_VALUE, IGNORE);
        }
    }

    private long findTailAnchor(final int windowRecordCount)
    {
        long anchor = NO_ANCHOR;
        try (ExcerptTailer tailer = queue.createTailer())
        {
            tailer.direction(TailerDirection.BACKWARD).toEnd();
            int readCount = 0;
            while (true)
            {
                final long chronicleIndex;
                final boolean readable;
                try (DocumentContext dc = tailer.readingDocument())
                {
                    if (!dc.isPresent())
                    {
                        break;
                    }
                    chronicleIndex = dc.index();
                    readable = decodeAny(dc.wire().bytes()) == DecodeStatus.OK;
                }
                readCount++;
                if (readable)
                {
                    anchor = chronicleIndex;
                    if (readCount >= windowRecordCount)
                    {
                        break;
                    }
                }
            }
        }
        return anchor;
    }

    private static void positionAt(final ExcerptTailer tailer, final SequenceTracker tracker, final long anchor)
    {
        if (NO_ANCHOR == anchor)
        {
            tailer.toStart();
            tracker.startAt(0, 0);
        }
        else
        {
            if (!tailer.moveToIndex(anchor))
            {
                throw new IllegalStateException("cannot move to Chronicle index " + Long.toHexString(anchor));
            }
            tracker.startUnanchored();
        }
    }

    private ReplayResult scan(
        final ExcerptTailer tailer,
        final SequenceTracker tracker,
        final long fromIndexExclusive,
        final CommandConsumer consumer)
    {
        long deliveredCount = 0;
        while (!tracker.isCorrupt())
        {
            final boolean inSequence;
            try (DocumentContext dc = tailer.readingDocument())
            {
                if (!dc.isPresent())
                {
                    break;
                }
                inSequence = track(dc.wire().bytes(), tracker);
            }
            if (inSequence && command.journalIndex > fromIndexExclusive)
            {
                consumer.accept(command);
                deliveredCount++;
            }
        }
        return tracker.result(deliveredCount);
    }

    /** @return true when the record is a command that continues the sequence. */
    private boolean track(final Bytes<?> bytes, final SequenceTracker tracker)
    {
        final DecodeStatus status = decodeAny(bytes);
        if (DecodeStatus.OK != status)
        {
            tracker.onUnreadable(status);
            return false;
        }
        if (lastWasMarker)
        {
            tracker.onRecoveryMarker(markerCodec.resumeAfterIndex(), markerCodec.lastTimestampNs());
            return false;
        }
        return tracker.onCommand(command.journalIndex, command.timestampNs);
    }

    /**
     * Decodes the document into {@link #command} or {@link #markerCodec}; {@link #lastWasMarker} tells
     * which. The document must hold exactly one record.
     */
    private DecodeStatus decodeAny(final Bytes<?> bytes)
    {
        lastWasMarker = false;
        final long remaining = bytes.readRemaining();
        if (remaining > recordBytes.length)
        {
            return DecodeStatus.BAD_LENGTH;
        }
        final int length = (int)remaining;
        bytes.read(recordBytes, 0, length);
        if (RecoveryMarkerCodec.isMarker(recordBuffer, 0, length))
        {
            lastWasMarker = true;
            return markerCodec.decode(recordBuffer, 0, length);
        }
        final DecodeStatus status = codec.decode(recordBuffer, 0, length, command);
        if (DecodeStatus.OK == status && RecordHeader.recordLength(recordBuffer, 0) != length)
        {
            return DecodeStatus.BAD_LENGTH;
        }
        return status;
    }

    /**
     * Finds the newest cycle whose first record is readable and at or before {@code firstWantedIndex}.
     *
     * @return the Chronicle index of that first record, or {@link #NO_ANCHOR} to start from the beginning.
     */
    private long findCycleAnchor(final ExcerptTailer tailer, final long firstWantedIndex)
    {
        if (queue.firstCycle() > queue.lastCycle())
        {
            return NO_ANCHOR;
        }
        final NavigableSet<Long> cycles = queue.listCyclesBetween(queue.firstCycle(), queue.lastCycle());
        for (final Long cycle : cycles.descendingSet())
        {
            final long chronicleIndex = probeFirstRecord(tailer, cycle.intValue());
            if (NO_ANCHOR != chronicleIndex && probedFirstIndex <= firstWantedIndex)
            {
                return chronicleIndex;
            }
        }
        return NO_ANCHOR;
    }

    /**
     * Reads the first record of {@code cycle}; on success sets {@link #probedFirstIndex} to the first
     * journal index the file holds.
     *
     * @return its Chronicle index, or {@link #NO_ANCHOR} when the cycle is empty or starts unreadable.
     */
    private long probeFirstRecord(final ExcerptTailer tailer, final int cycle)
    {
        tailer.direction(TailerDirection.FORWARD);
        if (!tailer.moveToCycle(cycle))
        {
            return NO_ANCHOR;
        }
        try (DocumentContext dc = tailer.readingDocument())
        {
            if (!dc.isPresent() || queue.rollCycle().toCycle(dc.index()) != cycle ||
                decodeAny(dc.wire().bytes()) != DecodeStatus.OK)
            {
                return NO_ANCHOR;
            }
            probedFirstIndex = lastWasMarker ? markerCodec.resumeAfterIndex() + 1 : command.journalIndex;
            return dc.index();
        }
    }

    @Override
    public void close()
    {
        if (ownsQueue)
        {
            queue.close();
        }
    }
}
