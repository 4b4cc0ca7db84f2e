package dev.tally.journal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableSet;
import java.util.concurrent.locks.LockSupport;

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
    private static final int NO_CYCLE = Integer.MIN_VALUE;
    /**
     * How often a read that stopped short of the end Chronicle knows of looks again before it calls the rest unreachable:
     * a writer next to a tool finishes a document in microseconds, a damaged header never.
     */
    private static final int END_CHECKS_MAX = 5;
    private static final long END_CHECK_PAUSE_NS = 20_000_000L;

    private final SingleChronicleQueue queue;
    private final boolean ownsQueue;
    private final CommandCodec codec = new CommandCodec();
    private final RecoveryMarkerCodec markerCodec = new RecoveryMarkerCodec();
    /** The current document, copied out of the queue: one or more records back to back. */
    private final byte[] documentBytes = new byte[Journal.DOCUMENT_BYTES_MAX];
    private final UnsafeBuffer documentBuffer = new UnsafeBuffer(documentBytes);
    private int documentLength;
    /** The current document's size in the queue, also when too large to copy. */
    private int documentSize;
    /** The cycle and file position just past the last document read; {@link #NO_CYCLE} before the first. */
    private int readCycle = NO_CYCLE;
    private long readEndPosition;
    /** Where the next record of the current document starts. */
    private int recordOffset;
    /** The record before {@link #recordOffset} is a command of this document that decoded: the next may follow it. */
    private boolean mayFollow;
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
            startEndTracking(anchor);
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
            startEndTracking(anchor);
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
                final int records;
                final boolean readable;
                try (DocumentContext dc = tailer.readingDocument())
                {
                    if (!dc.isPresent())
                    {
                        break;
                    }
                    chronicleIndex = dc.index();
                    records = recordCount(dc.wire().bytes());
                    readable = decodeFirst(dc.wire().bytes()) == DecodeStatus.OK;
                }
                readCount += records;
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

    /**
     * A scan from the start checks, even when it reads nothing, that the first cycle file holds no document it missed;
     * an anchored scan starts at a document read before, and checks from the last one it reads.
     */
    private void startEndTracking(final long anchor)
    {
        readCycle = NO_ANCHOR == anchor && queue.firstCycle() <= queue.lastCycle() ? queue.firstCycle() : NO_CYCLE;
        readEndPosition = 0;
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
        int endChecks = 0;
        while (!tracker.isCorrupt())
        {
            if (!readDocument(tailer))
            {
                final String beyond = beyondEnd();
                if (beyond == null)
                {
                    break;
                }
                if (endChecks++ < END_CHECKS_MAX)
                {
                    pauseForALiveWriter();   // a writer next to a tool may be finishing the document at the end
                    continue;
                }
                tracker.onUnreachableData(beyond);
                break;
            }
            endChecks = 0;
            // The document's records, in order; the first unreadable one ends it (its length cannot be trusted). An
            // empty or oversized document is one unreadable record.
            do
            {
                final int offset = recordOffset;
                if (track(tracker) && command.journalIndex > fromIndexExclusive)
                {
                    consumer.accept(command);
                    deliveredCount++;
                }
                if (tracker.isSkipping())
                {
                    tracker.onTornBytes((recordOffset < 0 ? documentSize : recordOffset) - offset);
                }
            }
            while (recordOffset < documentLength && !tracker.isCorrupt());
        }
        return tracker.result(deliveredCount);
    }

    /**
     * Reads the next document into {@link #documentBytes}, remembering where it ends in its cycle file.
     *
     * @return false at the end of what the tailer can read.
     */
    private boolean readDocument(final ExcerptTailer tailer)
    {
        try (DocumentContext dc = tailer.readingDocument())
        {
            if (!dc.isPresent())
            {
                return false;
            }
            final Bytes<?> bytes = dc.wire().bytes();
            documentSize = (int)Math.min(bytes.readRemaining(), Integer.MAX_VALUE);
            readCycle = queue.rollCycle().toCycle(dc.index());
            readEndPosition = bytes.readLimit();
            load(bytes, documentBytes.length);
            return true;
        }
    }

    /**
     * @return null when the read ended where Chronicle says the journal ends; otherwise what lies beyond
     *         ({@link ChronicleEndCheck}).
     */
    private String beyondEnd()
    {
        if (readCycle == NO_CYCLE)
        {
            return null;   // nothing read: an empty journal, or an anchored scan that found nothing to start from
        }
        try (ExcerptTailer probe = queue.createTailer())
        {
            return ChronicleEndCheck.beyond(queue, readCycle, readEndPosition, probe);
        }
    }

    private static void pauseForALiveWriter()
    {
        LockSupport.parkNanos(END_CHECK_PAUSE_NS);
    }

    /** @return true when the next record of the document is a command that continues the sequence. */
    private boolean track(final SequenceTracker tracker)
    {
        final int offset = recordOffset;
        final DecodeStatus status = decodeNext();
        if (DecodeStatus.OK != status)
        {
            tracker.onUnreadable(status);
            if (dataAfter(offset))
            {
                tracker.onDataAfterUnreadable();
            }
            recordOffset = documentLength;
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
     * Copies a document out of the queue, or its first {@code lengthMax} bytes, and points {@link #recordOffset} at its
     * first record. A document larger than any the journal writes reads as one unreadable record.
     */
    private void load(final Bytes<?> bytes, final int lengthMax)
    {
        final long remaining = bytes.readRemaining();
        recordOffset = 0;
        mayFollow = false;
        if (remaining > documentBytes.length)
        {
            documentLength = -1;
            return;
        }
        documentLength = (int)Math.min(remaining, lengthMax);
        bytes.read(documentBytes, 0, documentLength);
    }

    /**
     * @return whether the first record of the document in {@code bytes} decodes (into {@link #command} or the marker);
     *         copies only as much of the document as a record can take.
     */
    private DecodeStatus decodeFirst(final Bytes<?> bytes)
    {
        load(bytes, CommandCodec.ENCODED_LENGTH_MAX);
        return decodeNext();
    }

    /**
     * @return whether the document holds anything but zeros after the unreadable record at {@code offset} (past its
     *         announced length, or past its header when that length is too short to be one).
     */
    private boolean dataAfter(final int offset)
    {
        if (documentLength <= 0 || offset + RecordHeader.LENGTH > documentLength)
        {
            return false;
        }
        final int announced = Math.max(RecordHeader.recordLength(documentBuffer, offset), RecordHeader.LENGTH);
        for (int i = offset + announced; i < documentLength; i++)
        {
            if (documentBytes[i] != 0)
            {
                return true;
            }
        }
        return false;
    }

    /** @return how many records the document in {@code bytes} holds, by their lengths (at least 1), without copying it. */
    private static int recordCount(final Bytes<?> bytes)
    {
        final long end = bytes.readLimit();
        long at = bytes.readPosition();
        int count = 0;
        while (at + RecordHeader.LENGTH <= end)
        {
            final int length = bytes.readUnsignedByte(at + RecordHeader.RECORD_LENGTH_OFFSET) |
                bytes.readUnsignedByte(at + RecordHeader.RECORD_LENGTH_OFFSET + 1) << 8;
            if (length < RecordHeader.LENGTH)
            {
                break;
            }
            at += length;
            count++;
        }
        return Math.max(1, count);
    }

    /**
     * Decodes the record at {@link #recordOffset} into {@link #command} or {@link #markerCodec} ({@link #lastWasMarker}
     * tells which) and moves past it. The records must fill the document exactly: bytes after the last record that do
     * not make a whole one read as an unreadable record.
     */
    private DecodeStatus decodeNext()
    {
        lastWasMarker = false;
        if (documentLength < 0)
        {
            return DecodeStatus.BAD_LENGTH;
        }
        final int offset = recordOffset;
        final int remaining = documentLength - offset;
        if (RecoveryMarkerCodec.isMarker(documentBuffer, offset, remaining))
        {
            lastWasMarker = true;
            mayFollow = false;   // a record after a marker stands alone
            final DecodeStatus status = markerCodec.decode(documentBuffer, offset, remaining);
            recordOffset += RecoveryMarkerCodec.ENCODED_LENGTH;
            return status;
        }
        final DecodeStatus status = mayFollow ?
            codec.decodeFollowing(documentBuffer, offset, remaining, command) :
            codec.decode(documentBuffer, offset, remaining, command);
        mayFollow = DecodeStatus.OK == status;
        if (mayFollow)
        {
            recordOffset += RecordHeader.recordLength(documentBuffer, offset);
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
                decodeFirst(dc.wire().bytes()) != DecodeStatus.OK)
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
