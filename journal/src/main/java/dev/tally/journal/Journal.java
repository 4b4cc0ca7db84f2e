package dev.tally.journal;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.command.Command;
import net.openhft.chronicle.core.time.SystemTimeProvider;
import net.openhft.chronicle.core.time.TimeProvider;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.wire.DocumentContext;
import net.openhft.chronicle.wire.Wire;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The source of truth: stamps each command with Tally's own gap-free index and monotonic journaled
 * time, appends it to a Chronicle queue, and forces it to disk once per batch when the durability is
 * {@link Durability#SYNC}.
 *
 * <pre>
 *  journaler thread (one Disruptor handler)
 *    for each event:   stampAndStage(command, clockNs)    index = last + 1, time = max(clock, last time)
 *    on endOfBatch:    appendStaged()                     the batch's records as one Chronicle document
 *                      endOfBatch()                       SYNC: one fdatasync for the whole batch
 *    replies may leave for every index <= durableIndex() (the pipeline: once the stage releases the batch)
 * </pre>
 *
 * <p>On {@link #open(JournalConfig)} the tail is checked: the sequence continues after the last good
 * record; a torn tail (unreadable records after it, e.g. from a power loss) is cut with a durable
 * recovery marker and reported in {@link #recovery()}. A process crash (kill -9) leaves at most one
 * unfinished Chronicle document, which Chronicle never shows to readers and overwrites on the next
 * append, so every append that returned is kept.
 *
 * <p>A Chronicle document holds one record ({@link #stampAndAppend}) or several ({@link #stampAndStage}, then
 * {@link #appendStaged}); each record keeps its own header and checksum, and takes from the one before it in the
 * document only what their batch shares (index + 1, time, tenant, batch size, currency), so a reader checks every one.
 *
 * <p>Single-threaded: open it on any thread, then use it from one thread at a time (the journaler).
 * {@link #stampAndAppend}, {@link #stampAndStage}, {@link #appendStaged} and {@link #flush} allocate nothing in steady
 * state.
 */
public final class Journal implements CommandLog, AutoCloseable
{
    static
    {
        JournalQueues.disableAnalytics();
    }

    private final JournalConfig config;
    private final SingleChronicleQueue queue;
    private final ExcerptAppender appender;
    private final JournalReader reader;
    private final FileForcer forcer;
    private final CommandCodec codec = new CommandCodec();
    private final RecoveryMarkerCodec markerCodec = new RecoveryMarkerCodec();
    /**
     * The records of the next document: one when appended, as many as were staged ({@link #stampAndStage}) until
     * {@link #appendStaged()}.
     */
    private final byte[] encodeBytes = new byte[DOCUMENT_BYTES_MAX];
    private final UnsafeBuffer encodeBuffer = new UnsafeBuffer(encodeBytes);
    private final RecoveryReport recovery;
    /** Bytes staged in {@link #encodeBytes} for the next document. */
    private int stagedLength;
    /** How many records are staged. */
    private int stagedCount;
    /** The index and time of the last record staged; {@link #lastIndex} and its time while none is. */
    private long stagedLastIndex;
    private long stagedLastTimestampNs;

    private long lastIndex;
    /** File offset just past the last record appended (Chronicle's mapped bytes address the whole file). */
    private long appendPosition;
    private long lastTimestampNs;
    private long durableIndex;
    /** The last index forced to stable storage (under ASYNC it trails the appends by up to the force interval). */
    private long forcedIndex;
    /**
     * What another thread may pass on (the read model's writer): the last index on stable storage, or, under ASYNC
     * without a force interval, the last appended (nothing is ever forced there).
     */
    private volatile long stableIndex;
    private final long asyncForceIntervalNs;
    /**
     * Under ASYNC, a force also once this many bytes were appended since the last one, however soon: at batch rates
     * an interval's worth of appends (10 ms: ≈ 0.7 MB) made one long force that the batches queued behind it waited
     * for; smaller ones keep that wait short (docs/benchmarks/history/2026-11-30-async-force-per-256k.md).
     */
    static final long ASYNC_FORCE_BYTES = 256 * 1024;
    /**
     * The largest Chronicle document the journal writes, and reads: staged records go out together up to this size.
     * One document per 100-transfer batch request instead of 100 saves Chronicle's per-document header, index and
     * commit work (docs/JOURNAL.md, "Several records in one document"). Full documents go through even with the smallest
     * block size, {@link JournalConfig#BLOCK_SIZE_BYTES_MIN} (1 MiB chunks; {@code JournalDocumentsTest}).
     */
    public static final int DOCUMENT_BYTES_MAX = 64 * 1024;
    private long lastForceNs;
    /** Bytes appended since the last force: under ASYNC a force also once this passes {@link #ASYNC_FORCE_BYTES}. */
    private long bytesSinceForce;
    private boolean closed;
    /**
     * A force failed: what it should have written may be gone while a later {@code fdatasync} reports success (the
     * kernel drops the failed pages and clears the error), so no later force is believed, nor tried.
     */
    private IOException forceFailure;
    /** Failures injected by tests ({@link JournalFaults}); never fire otherwise. */
    private final JournalFaults faults = new JournalFaults();
    /** The cycle files open forced (tests): what a killed writer left may have been in the page cache only. */
    private final List<Path> forcedAtOpen;

    private Journal(final JournalConfig config, final SingleChronicleQueue queue, final EndWitness witness)
    {
        this.config = config;
        this.queue = queue;
        this.forcer = new FileForcer(config.zeroFillAheadBytes(), config.unmapWrittenPages(), config.dropForcedPages());
        this.appender = queue.createAppender();
        this.reader = new JournalReader(queue, false);
        this.recovery = recover(witness);
        lastIndex = recovery.tailScan().lastIndex();
        lastTimestampNs = recovery.tailScan().lastTimestampNs();
        stagedLastIndex = lastIndex;
        stagedLastTimestampNs = lastTimestampNs;
        durableIndex = lastIndex;
        forcedAtOpen = forceWhatOpenFound();
        forcedIndex = lastIndex;
        stableIndex = lastIndex;
        asyncForceIntervalNs = TimeUnit.MILLISECONDS.toNanos(config.asyncForceIntervalMs());
        lastForceNs = System.nanoTime();
        appender.singleThreadedCheckReset();
    }

    /**
     * After cycle files were deleted (journal pruning, server stopped): makes the queue's own directory
     * listing forget them, so that read-only opens ({@link JournalReader}) work again.
     */
    public static void forgetDeletedCycleFiles(final java.nio.file.Path directory)
    {
        JournalQueues.refreshDirectoryListing(directory);
    }

    /**
     * Opens (creating when absent) the journal in {@code config.directory()}, checks its tail and forces what it found
     * to disk, so that {@link #stableIndex()} starts at the truth (a killed writer leaves its last appends unforced).
     *
     * @throws JournalCorruptedException when the journal is broken before its tail, or when intact
     *                                   records follow an unreadable one and
     *                                   {@link JournalConfig#truncateAfterCorruption()} is off.
     * @throws UncheckedIOException      when what it found cannot be forced to disk.
     */
    public static Journal open(final JournalConfig config)
    {
        return open(config, EndWitness.NONE);
    }

    /**
     * As {@link #open(JournalConfig)}, refusing a journal that ends below {@code witness} (the newest snapshot, PostgreSQL's
     * watermark): before cutting a torn tail, and when there is nothing to cut. Such a journal lost records that were on
     * stable storage, and serving it would answer with less than was acknowledged.
     *
     * @throws JournalCorruptedException as {@link #open(JournalConfig)}, and when the journal ends below the witness.
     */
    public static Journal open(final JournalConfig config, final EndWitness witness)
    {
        return open(config, witness, SystemTimeProvider.INSTANCE);
    }

    /** As {@link #open(JournalConfig)}, with the clock that decides when a cycle file rolls (tests). */
    static Journal open(final JournalConfig config, final TimeProvider rollClock)
    {
        return open(config, EndWitness.NONE, rollClock);
    }

    private static Journal open(final JournalConfig config, final EndWitness witness, final TimeProvider rollClock)
    {
        try
        {
            Files.createDirectories(config.directory());
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        final SingleChronicleQueue queue = JournalQueues.openForAppend(config, rollClock);
        try
        {
            return new Journal(config, queue, witness);
        }
        catch (final RuntimeException ex)
        {
            queue.close();
            throw ex;
        }
    }

    /** Shorthand for {@code open(JournalConfig.of(directory, durability))}. */
    public static Journal open(final Path directory, final Durability durability)
    {
        return open(JournalConfig.of(directory, durability));
    }

    /**
     * Stamps {@code command} with the next journal index and {@code max(clockNs, lastTimestampNs())},
     * then appends it: one document, which also holds any records staged before it ({@link #stampAndStage}). Under
     * {@link Durability#ASYNC} the command is durable when this returns; under {@link Durability#SYNC} after the next
     * {@link #flush()}.
     *
     * @param clockNs the journaler's wall clock in epoch nanoseconds; may go backwards.
     * @return the journal index given to the command.
     * @throws IllegalStateException    when the index space ({@link LedgerLimits#JOURNAL_INDEX_MAX}) is used up.
     * @throws IllegalArgumentException when the command cannot be encoded (a bug upstream).
     */
    public long stampAndAppend(final Command command, final long clockNs)
    {
        final long index = stampAndStage(command, clockNs);
        appendStaged();
        return index;
    }

    /**
     * Stamps {@code command} as {@link #stampAndAppend} does and encodes it, but keeps it for the next document: the
     * records staged go to the queue together, as one document, at {@link #appendStaged()}. Until then the command is
     * not in the journal (a crash loses it, {@link #lastIndex()} does not count it), so nothing may act on it outside
     * this process: the pipeline stages a Disruptor batch and appends it before it hands the batch on.
     *
     * @param clockNs the journaler's wall clock in epoch nanoseconds; may go backwards.
     * @return the journal index given to the command.
     * @throws IllegalStateException    when the index space ({@link LedgerLimits#JOURNAL_INDEX_MAX}) is used up, or when
     *                                  the next document has no room left ({@link #stagingFull()}; a bug upstream).
     * @throws IllegalArgumentException when the command cannot be encoded (a bug upstream). Either way nothing is
     *                                  staged and what was staged before stays.
     */
    @Override
    public long stampAndStage(final Command command, final long clockNs)
    {
        final long index = stagedLastIndex + 1;
        if (index > LedgerLimits.JOURNAL_INDEX_MAX)
        {
            throw new IllegalStateException("journal index space exhausted at " + stagedLastIndex);
        }
        if (stagingFull())
        {
            throw new IllegalStateException("the next journal document is full: append what is staged first");
        }
        command.journalIndex = index;
        command.timestampNs = Math.max(clockNs, stagedLastTimestampNs);
        stagedLength += stagedCount == 0 ?
            codec.encode(command, encodeBuffer, stagedLength) :
            codec.encodeFollowing(command, encodeBuffer, stagedLength);   // its index, time, tenant ... as the one before
        stagedCount++;
        stagedLastIndex = index;
        stagedLastTimestampNs = command.timestampNs;
        return index;
    }

    @Override
    public long nextIndex()
    {
        return stagedLastIndex + 1;
    }

    /** @return true when the next document may have no room for another record: {@link #appendStaged()} first. */
    @Override
    public boolean stagingFull()
    {
        return stagedLength > DOCUMENT_BYTES_MAX - CommandCodec.ENCODED_LENGTH_MAX;
    }

    /** @return how many records are staged for the next document. */
    public int stagedCount()
    {
        return stagedCount;
    }

    /**
     * Appends the records staged since the last call as one Chronicle document (nothing when none is). Under
     * {@link Durability#ASYNC} they are durable when this returns; under {@link Durability#SYNC} after the next
     * {@link #flush()}.
     *
     * @throws RuntimeException when the queue refuses the document: none of the staged records is in the journal, and
     *                          none stays staged (their indexes are given again).
     */
    @Override
    public void appendStaged()
    {
        if (stagedCount == 0)
        {
            return;
        }
        try
        {
            write(stagedLength);
        }
        catch (final RuntimeException | Error ex)
        {
            stagedLastIndex = lastIndex;
            stagedLastTimestampNs = lastTimestampNs;
            throw ex;
        }
        finally
        {
            stagedLength = 0;
            stagedCount = 0;
        }
        lastIndex = stagedLastIndex;
        lastTimestampNs = stagedLastTimestampNs;
        if (Durability.ASYNC == config.durability())
        {
            durableIndex = lastIndex;
            if (asyncForceIntervalNs == 0)
            {
                stableIndex = lastIndex;
            }
        }
    }

    /**
     * Makes every command appended so far durable: under {@link Durability#SYNC} one
     * {@code fdatasync(2)} of the queue file (nothing when nothing was appended since the last flush);
     * under {@link Durability#ASYNC} nothing to do.
     *
     * @throws UncheckedIOException when the disk refuses; the journal can no longer promise anything.
     */
    public void flush()
    {
        appendStaged();
        if (durableIndex == lastIndex)
        {
            return;
        }
        force();
        durableIndex = lastIndex;
    }

    /**
     * The group-commit hook for the Disruptor handler's {@code endOfBatch}: same as {@link #flush()}, and under
     * {@link Durability#ASYNC} a force once {@link JournalConfig#asyncForceIntervalMs()} has passed since the
     * last one (the pipeline brings a batch end at least every half interval, a {@code FORCE_CHECK}, so that a
     * power loss takes back at most about 1.5 intervals, idle or not).
     */
    @Override
    public void endOfBatch()
    {
        endOfBatch(System.nanoTime());
    }

    /** {@link #endOfBatch()} at a given {@link System#nanoTime()} (tests). */
    void endOfBatch(final long nowNs)
    {
        flush();
        if (Durability.ASYNC == config.durability() && forcedIndex < lastIndex && asyncForceIntervalNs > 0 &&
            (nowNs - lastForceNs >= asyncForceIntervalNs || bytesSinceForce >= ASYNC_FORCE_BYTES))
        {
            forceToDisk();
            lastForceNs = nowNs;
        }
    }

    /** @return the last index on stable storage: {@link #durableIndex()} under SYNC, trailing it under ASYNC. */
    public long forcedIndex()
    {
        return forcedIndex;
    }

    /** @return the index of the last command appended; 0 for an empty journal. */
    public long lastIndex()
    {
        return lastIndex;
    }

    /** @return the journaled time of the last command appended; 0 for an empty journal. */
    public long lastTimestampNs()
    {
        return lastTimestampNs;
    }

    /**
     * @return the last index whose effects another thread may hand on (the PostgreSQL writer), read from any thread:
     *         the last one forced to stable storage, so that nothing downstream ever holds a command a power loss
     *         can take from the journal; under {@link Durability#ASYNC} without a force interval, the last one
     *         appended, as nothing is ever forced there.
     */
    public long stableIndex()
    {
        return stableIndex;
    }

    /** @return the last index the durability mode promises to keep: replies up to it may leave. */
    public long durableIndex()
    {
        return durableIndex;
    }

    @Override
    public Durability durability()
    {
        return config.durability();
    }

    /** @return {@link JournalConfig#asyncForceIntervalMs()}: how often an {@code ASYNC} journal forces, at most. */
    @Override
    public long asyncForceIntervalMs()
    {
        return config.asyncForceIntervalMs();
    }

    public Path directory()
    {
        return config.directory();
    }

    /** @return what opening found at the tail and did about it. */
    public RecoveryReport recovery()
    {
        return recovery;
    }

    /** Replays the commands after {@code fromIndexExclusive}; see {@link JournalReader#replay}. */
    public ReplayResult replay(final long fromIndexExclusive, final CommandConsumer consumer)
    {
        return reader.replay(fromIndexExclusive, consumer);
    }

    /** @return the cycle files, oldest first, for retention; see docs/JOURNAL.md. */
    public List<JournalCycleFile> cycleFiles()
    {
        return reader.cycleFiles();
    }

    /** @return the end of the zero-filled region ahead of the appends in the current file (tests). */
    long zeroFilledTo()
    {
        return forcer.zeroFilledTo();
    }

    /** @return the file offset just past the last record appended (tests). */
    long appendPosition()
    {
        return appendPosition;
    }

    /** @return whether the pages appended since the last force are unmapped before each force (tests). */
    boolean unmapsWrittenPages()
    {
        return forcer.unmapsWrittenPages();
    }

    /** @return whether the pages a force wrote back are dropped from the page cache after it (tests). */
    boolean dropsForcedPages()
    {
        return forcer.dropsForcedPages();
    }

    /** @return bytes of the current cycle file's page cache dropped after forces so far (tests). */
    long droppedBytes()
    {
        return forcer.droppedBytes();
    }

    /**
     * A clean stop's force, before {@link #close()} (which does it too) when something downstream must see every
     * append as stable first (the PostgreSQL writer catching up): flushes, and under {@link Durability#ASYNC} forces
     * too, unless its interval is 0. From the journaler's thread, or once it has stopped.
     */
    public void forceForStop()
    {
        flush();
        if (forcedIndex < lastIndex && asyncForceIntervalNs > 0)
        {
            forceToDisk(); // a clean stop leaves nothing for the kernel to write back later
        }
    }

    /** {@link #forceForStop()}, then releases the queue. Idempotent. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        try
        {
            forceForStop();
        }
        finally
        {
            try
            {
                forcer.close();
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
            finally
            {
                appender.close();
                reader.close();
                queue.close();
            }
        }
    }

    private RecoveryReport recover(final EndWitness witness)
    {
        final ReplayResult tail = reader.scanTail(config.tailScanRecordCount());
        if (ReplayStatus.COMPLETE == tail.status())
        {
            refuseBelow(witness, tail, "the journal ends at index " + tail.lastIndex());
            return new RecoveryReport(tail, false);
        }
        if (ReplayStatus.CORRUPT == tail.status())
        {
            final boolean cuttable = tail.tornTailValidRecordCount() > 0;
            if (!cuttable)
            {
                throw new JournalCorruptedException("journal sequence is broken", tail);
            }
            if (!config.truncateAfterCorruption())
            {
                throw new JournalCorruptedException(
                    "intact records follow an unreadable one (not a crash artefact); " +
                    "refusing to cut them without truncateAfterCorruption (tally serve --truncate-journal-after-corruption)", tail);
            }
        }
        refuseBelow(witness, tail, "cutting the " + tail.tornTailRecordCount() + " unreadable record(s) (" + tail.tornTailBytes() +
            " bytes) after index " + tail.lastIndex() + " would drop what a witness holds");
        final int length = markerCodec.encode(
            encodeBuffer, 0, tail.lastIndex(), tail.lastTimestampNs(), tail.tornTailRecordCount());
        write(length);
        forceToDisk();
        return new RecoveryReport(tail, true);
    }

    /** A journal (or what a cut would leave of it) that ends below a witness lost records it held on stable storage. */
    private static void refuseBelow(final EndWitness witness, final ReplayResult tail, final String what)
    {
        if (witness.isBeyond(tail.lastIndex()))
        {
            throw new JournalCorruptedException(what + ": " + witness.gapBefore(tail.lastIndex()), tail);
        }
    }

    /**
     * Forces what open found, so that {@link #forcedIndex()} and {@link #stableIndex()} start at the truth. A killed
     * writer (kill -9) leaves its last appends in the page cache only: under ASYNC those since its last timed force,
     * under SYNC the batch whose force was running (never acknowledged, but applied by the replay all the same). Without
     * this force the PostgreSQL writer and the snapshotter would take them during the replay, and a power loss before
     * the kernel writes them back would leave PostgreSQL ahead of the journal.
     *
     * <p>Which files: the newest cycle file and the one before it. A writer forces the previous file when its first
     * force after a roll switches files ({@link FileForcer}); killed between the roll and that force, it leaves the
     * previous file's tail unforced too. Older files were last written more than an hour ago, long since written back
     * by the kernel (or forced by that same switch). Then the directory, for the newest file's name. In every mode,
     * {@code asyncForceIntervalMs = 0} included: once at open costs nothing there either.
     *
     * @return the files forced, oldest first; empty for a journal without any.
     * @throws UncheckedIOException when a force fails: the journal then refuses to open, as no later force on that
     *                              disk could be believed either.
     */
    private List<Path> forceWhatOpenFound()
    {
        final List<Path> files = newestCycleFiles(config.directory(), 2);
        if (files.isEmpty())
        {
            return files;
        }
        try
        {
            faults.beforeForce();
            for (final Path file : files)
            {
                try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ))
                {
                    channel.force(false);
                }
            }
            FileForcer.forceDirectory(config.directory().toAbsolutePath());
        }
        catch (final IOException ex)
        {
            forceFailure = ex;
            throw new UncheckedIOException("cannot force the journal found in " + config.directory() + " to disk at open " +
                "(journal index " + lastIndex + "): refusing to start on a disk that cannot force", ex);
        }
        return files;
    }

    /** @return the newest {@code count} cycle files in {@code directory}, oldest first (their names sort by time). */
    private static List<Path> newestCycleFiles(final Path directory, final int count)
    {
        try (Stream<Path> listing = Files.list(directory))
        {
            final List<Path> files = listing
                .filter(path -> path.getFileName().toString().endsWith(SingleChronicleQueue.SUFFIX) && Files.isRegularFile(path))
                .sorted()
                .collect(Collectors.toList());
            return files.subList(Math.max(0, files.size() - count), files.size());
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot list the journal in " + directory, ex);
        }
    }

    /** @return the cycle files forced at open, oldest first (tests). */
    List<Path> forcedAtOpen()
    {
        return forcedAtOpen;
    }

    private void write(final int length)
    {
        faults.beforeDocument();
        try (DocumentContext dc = appender.writingDocument())
        {
            try
            {
                dc.wire().bytes().write(encodeBytes, 0, length);
                appendPosition = dc.wire().bytes().writePosition();
                bytesSinceForce += length;
            }
            catch (final RuntimeException | Error ex)
            {
                dc.rollbackOnClose();
                throw ex;
            }
        }
    }

    private void force()
    {
        if (Durability.SYNC == config.durability())
        {
            forceToDisk();
        }
    }

    private void forceToDisk()
    {
        final File file = appender.currentFile();
        if (forceFailure != null)
        {
            throw new UncheckedIOException("an earlier force of the journal failed: nothing appended since is known to be on disk",
                forceFailure);
        }
        try
        {
            faults.beforeForce();
            final Wire wire = appender.wire();
            forcer.force(file, null == wire ? null : wire.bytes().bytesStore(), appendPosition);
            forcedIndex = lastIndex;
            stableIndex = lastIndex;
            bytesSinceForce = 0;
        }
        catch (final IOException ex)
        {
            forceFailure = ex;
            throw new UncheckedIOException("cannot force journal file " + file + " to disk", ex);
        }
    }
}
