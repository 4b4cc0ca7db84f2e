package dev.tally.snapshotter;

import dev.tally.ledger.Ledger;
import dev.tally.ledger.StateDigest;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.image.StateImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes snapshots while the server runs, in two halves on two threads:
 *
 * <pre>
 *   business thread                                   tally-snapshotter (this agent)
 *   SNAPSHOT command applied ──► onCommand:            doWork: image ready, and its command forced?
 *     writer idle? copy the ledger into the image ──►    state hash of the image, encode + CRC32C,
 *     (array copies of the live tables), hand it over    temp file, force, rename, fsync dir, retention
 * </pre>
 *
 * The business thread pays only for the copy (memory bandwidth: ~0.35 GB, ~28 ms, for a million accounts,
 * keys and transfers, see docs/SNAPSHOTS.md); everything slow happens here. A SNAPSHOT command that arrives
 * while the previous image is still being written is let through without a copy (it changed nothing).
 * The image is one reused {@link StateImage}, grown here for the state of the moment just before this agent
 * asks for a snapshot ({@link Ledger#reserveImage}), so that the business thread's copy does not allocate
 * (it still would if the state outgrew the margin between the request and the command's turn).
 *
 * <p>This agent also decides when the next snapshot is due (every {@link SnapshotConfig#everyCommands()}
 * journaled commands, or {@link SnapshotConfig#intervalMs()} after the last one when anything but ticks
 * was journaled since, or at once after {@link #requestNow()}) and asks its {@link SnapshotTrigger} to put a
 * SNAPSHOT command in the ring: the snapshot is then taken where that command lands in the journal.
 */
public final class Snapshotter implements Agent, AutoCloseable
{
    /**
     * Sleep of the {@code tally-snapshotter} thread between looks at the image and the schedule: a copied image waits at most this
     * long to be written, and a due snapshot to be requested (intervals are seconds to minutes). At 1 ms an idle
     * server woke this thread 1,000 times a second, ≈ 1.3 % of a core.
     */
    private static final long IDLE_SLEEP_MS = 20;

    private static final Logger LOG = LoggerFactory.getLogger(Snapshotter.class);
    /** How long an image may wait for the journal to force the command it was taken at before it is dropped. */
    static final long STABLE_WAIT_MAX_NS = 5_000_000_000L;
    /** After a failed write, the next snapshot is attempted no sooner than this. */
    private static final long RETRY_AFTER_FAILURE_NS = 10_000_000_000L;

    private final SnapshotDirectory directory;
    private final SnapshotFormat format = new SnapshotFormat();
    private final StateImage image = new StateImage();
    /** Set by the business thread once the image is copied, cleared here once it is written: one owner at a time. */
    private final AtomicBoolean imageReady = new AtomicBoolean();
    /** Journal index of the last command the business thread applied (for the publisher's schedule). */
    private final AtomicLong appliedIndex = new AtomicLong();
    /**
     * Journal index of the last command other than a tick or a snapshot: an idle server journals a tick a
     * second, and a snapshot every interval of nothing but ticks would rewrite the same state (replaying
     * ticks at restart is cheap).
     */
    private final AtomicLong changedIndex = new AtomicLong();
    private final AtomicLong writtenIndex = new AtomicLong();
    private final AtomicLong skippedCount = new AtomicLong();
    /**
     * SNAPSHOT commands the business thread is done with (copied or let through): tells this agent its request
     * arrived, and, equal to {@link #publishedCount}, that no copy into the image is under way or on its way.
     */
    private final AtomicLong seenCount = new AtomicLong();
    /** SNAPSHOT commands this agent published (only it publishes them). */
    private long publishedCount;
    /** The live ledger, for sizing the image ahead of a request; null until {@link #prepare}. */
    private Ledger ledger;
    // Figures of the last write for /metrics. Written only by whichever thread writes a snapshot (the agent,
    // or the closing thread once the agent has stopped), read by scrapes: the business thread never touches
    // them, so its path stays one copy and a few ordered stores.
    private final AtomicLong writtenCount = new AtomicLong();
    private final AtomicLong failedCount = new AtomicLong();
    private volatile long lastCopyNs;
    private volatile long lastWriteNs;
    private volatile long lastSizeBytes;
    private final SnapshotConfig config;
    private SnapshotTrigger trigger;
    private volatile boolean requested;
    private long copyNs;
    // owned by the agent thread
    private long lastRequestNs = System.nanoTime();
    private boolean awaitingCommand;
    private long failedAtNs = System.nanoTime() - RETRY_AFTER_FAILURE_NS;
    /** The journal's stable index ({@link #writeOnlyOnceStable}): an image past it waits. */
    private volatile LongSupplier stableIndex = () -> Long.MAX_VALUE;
    /** This thread: since when the image in hand waits for the journal to force its command (0: it does not wait). */
    private long waitingForForceSinceNs;
    private long seenAtRequest;
    private AgentRunner runner;

    /**
     * @param directory         where snapshots are written.
     * @param lastSnapshotIndex index of the snapshot the ledger started from (0: none).
     * @param config            when snapshots are due.
     */
    public Snapshotter(final SnapshotDirectory directory, final long lastSnapshotIndex, final SnapshotConfig config)
    {
        this.directory = directory;
        this.config = config;
        writtenIndex.set(lastSnapshotIndex);
    }

    /**
     * Starts the writer thread ("tally-snapshotter", daemon).
     *
     * @param trigger puts a SNAPSHOT command in the ring when one is due.
     */
    public synchronized Snapshotter start(final SnapshotTrigger trigger)
    {
        triggerWith(trigger);
        runner = new AgentRunner(new SleepingMillisIdleStrategy(IDLE_SLEEP_MS), ex -> LOG.error("snapshot writer failed", ex), null, this);
        AgentRunner.startOnThread(runner, r ->
        {
            final Thread t = new Thread(r, "tally-snapshotter");
            t.setDaemon(true);
            return t;
        });
        return this;
    }

    /**
     * Starts from the recovered ledger, on the calling thread before the pipeline runs:
     * <ul>
     *   <li>the schedule counts from the ledger's last index, not 0: the commands replayed after the
     *   snapshot it started from are not yet in any snapshot, so the interval trigger covers them even
     *   if only ticks follow;</li>
     *   <li>the reused image is sized for the state (one copy), so that the first snapshot does not
     *   allocate it on the business thread: for a million accounts, keys and transfers that is ~350 MB
     *   and a ~350 ms pause instead of the ~28 ms copy (docs/BENCHMARKS.md). Later growth past the
     *   image's quarter of headroom still allocates.</li>
     * </ul>
     */
    public void prepare(final Ledger startingLedger)
    {
        appliedIndex.set(startingLedger.lastJournalIndex());
        changedIndex.set(startingLedger.lastJournalIndex());
        ledger = startingLedger;
        if (!imageReady.get() && !startingLedger.isInsideBatch())
        {
            startingLedger.copyTo(image);
        }
    }

    /**
     * Makes the snapshotter write an image only once the journal holds the command it was taken at on stable storage
     * ({@code Journal.stableIndex()}): the business thread copies the state at a SNAPSHOT command while the journaler
     * may still be forcing it. A file of a state the journal then lost to a power loss could be matched, at a later
     * start, against another command given the same index. An image whose command is not forced within
     * {@link #STABLE_WAIT_MAX_NS} (a failed force halts the pipeline for good) is dropped. Call before {@link #start}.
     */
    public void writeOnlyOnceStable(final LongSupplier journalStableIndex)
    {
        this.stableIndex = journalStableIndex;
    }

    /** Sets who publishes the SNAPSHOT command; alone (without {@link #start}) a test drives {@link #doWork()}. */
    void triggerWith(final SnapshotTrigger trigger)
    {
        this.trigger = trigger;
    }

    /**
     * Business thread: after each applied command. On a SNAPSHOT command, copies the ledger into the image
     * unless the previous one is still being written.
     */
    public void onCommand(final Ledger ledger, final Command command)
    {
        appliedIndex.lazySet(command.journalIndex);
        if (command.type != CommandType.SNAPSHOT)
        {
            if (command.type != CommandType.TICK)
            {
                changedIndex.lazySet(command.journalIndex);
            }
            return;
        }
        if (imageReady.get())
        {
            skippedCount.incrementAndGet();
            seenCount.lazySet(seenCount.get() + 1);
            return;
        }
        final long startNs = System.nanoTime();
        ledger.copyTo(image);
        copyNs = System.nanoTime() - startNs;
        imageReady.set(true);
        seenCount.lazySet(seenCount.get() + 1);   // after the copy: see reserveWhenIdle
    }

    @Override
    public int doWork()
    {
        final long nowNs = System.nanoTime();
        if (!imageReady.get())
        {
            return trigger == null || nowNs - failedAtNs < RETRY_AFTER_FAILURE_NS ? 0 : requestWhenDue(nowNs);
        }
        if (image.lastJournalIndex() > stableIndex.getAsLong())
        {
            return awaitForce(nowNs);
        }
        waitingForForceSinceNs = 0;
        try
        {
            final long stateHash = image.stateHash();
            final Path file = directory.write(image, stateHash, format);
            recordWritten(image.lastJournalIndex(), copyNs, System.nanoTime() - nowNs);
            LOG.info("snapshot at journal index {} ({} MB, state hash {}): copied in {} ms on the business thread, hashed and written in {} ms",
                image.lastJournalIndex(), SnapshotFormat.fileLength(image) >> 20, StateDigest.hex(stateHash), copyNs / 1_000_000,
                (System.nanoTime() - nowNs) / 1_000_000);
            LOG.debug("snapshot file {}", file);
        }
        catch (final IOException | RuntimeException ex)
        {
            // A full or failing disk: the journal still holds everything, so serving goes on; the next
            // attempt waits, rather than make the business thread copy the state again every few ms.
            recordFailure(nowNs);
            LOG.error("snapshot at journal index {} not written; retrying in {} s", image.lastJournalIndex(),
                RETRY_AFTER_FAILURE_NS / 1_000_000_000L, ex);
        }
        finally
        {
            imageReady.set(false);
        }
        return 1;
    }

    /**
     * The image's command is not forced yet: waits (0: no work), or, after {@link #STABLE_WAIT_MAX_NS}, gives the image
     * up (1).
     */
    private int awaitForce(final long nowNs)
    {
        if (waitingForForceSinceNs == 0)
        {
            waitingForForceSinceNs = nowNs;
        }
        if (nowNs - waitingForForceSinceNs < STABLE_WAIT_MAX_NS)
        {
            return 0;
        }
        waitingForForceSinceNs = 0;
        recordFailure(nowNs);
        LOG.error("snapshot at journal index {} dropped: the journal has not forced that command in {} s (a failed force halts " +
            "the pipeline)", image.lastJournalIndex(), STABLE_WAIT_MAX_NS / 1_000_000_000L);
        imageReady.set(false);
        return 1;
    }

    /** A snapshot not written: counted, and the next one waits {@link #RETRY_AFTER_FAILURE_NS}. One writing thread. */
    private void recordFailure(final long nowNs)
    {
        failedAtNs = nowNs;
        failedCount.lazySet(failedCount.get() + 1);
    }

    /**
     * After a file is complete (renamed and its directory forced): publishes its index, then the figures of
     * the write. One writing thread at a time, so a plain read-add-write suffices for the count.
     */
    private void recordWritten(final long index, final long copiedNs, final long writtenNs)
    {
        lastCopyNs = copiedNs;
        lastWriteNs = writtenNs;
        lastSizeBytes = SnapshotFormat.fileLength(image);
        writtenCount.lazySet(writtenCount.get() + 1);
        writtenIndex.set(index);
    }

    /** Asks for a snapshot as soon as possible (an operator's request): the agent publishes the command. */
    public void requestNow()
    {
        requested = true;
    }

    /**
     * Publishes a SNAPSHOT command when one is due and the last one published has been seen by the
     * business thread (or got lost: a full ring, a halted pipeline; retried after a second).
     */
    private int requestWhenDue(final long nowNs)
    {
        if (awaitingCommand)
        {
            if (seenCount.get() == seenAtRequest && nowNs - lastRequestNs < 1_000_000_000L)
            {
                return 0;
            }
            awaitingCommand = false;
        }
        final long journaledSince = appliedIndex.get() - writtenIndex.get();
        final boolean changedSince = changedIndex.get() > writtenIndex.get();
        final boolean due = requested || journaledSince >= config.everyCommands() ||
            (changedSince && nowNs - lastRequestNs >= config.intervalMs() * 1_000_000L);
        if (!due)
        {
            return 0;
        }
        reserveWhenIdle();
        if (!trigger.publishSnapshotCommand())
        {
            return 0;
        }
        publishedCount++;
        requested = false;
        awaitingCommand = true;
        seenAtRequest = seenCount.get();
        lastRequestNs = nowNs;
        return 1;
    }

    /**
     * Grows the image for the ledger's state now, here rather than in the business thread's copy, when no copy
     * can touch the image: every SNAPSHOT command published has been dealt with (the business thread counts it
     * after its copy) and the last image is written (this thread is not in {@link #doWork}'s write).
     */
    private void reserveWhenIdle()
    {
        if (ledger != null && seenCount.get() == publishedCount && !imageReady.get())
        {
            ledger.reserveImage(image);
        }
    }

    /** @return the reused image (tests). */
    StateImage image()
    {
        return image;
    }

    /** @return true when no image is waiting to be written: a SNAPSHOT command now would be taken. */
    public boolean isIdle()
    {
        return !imageReady.get();
    }

    /** @return the journal index of the last command the business thread applied. */
    public long appliedIndex()
    {
        return appliedIndex.get();
    }

    /** @return the journal index of the newest snapshot written (or loaded at start-up). */
    public long writtenIndex()
    {
        return writtenIndex.get();
    }

    /** @return SNAPSHOT commands let through without a copy because the writer was busy. */
    public long skippedCount()
    {
        return skippedCount.get();
    }

    /** @return snapshots written since start (the one at a graceful stop included). */
    public long writtenCount()
    {
        return writtenCount.get();
    }

    /** @return snapshot writes that failed (a full or failing disk); serving went on, the next one is retried later. */
    public long failedCount()
    {
        return failedCount.get();
    }

    /** @return nanoseconds the business thread spent copying the ledger for the last snapshot written (0 at stop: no pause). */
    public long lastCopyNs()
    {
        return lastCopyNs;
    }

    /** @return nanoseconds the last snapshot written took to hash, encode, write and force (on the writer's thread). */
    public long lastWriteNs()
    {
        return lastWriteNs;
    }

    /** @return size in bytes of the last snapshot file written (0: none since start). */
    public long lastSizeBytes()
    {
        return lastSizeBytes;
    }

    @Override
    public String roleName()
    {
        return "tally-snapshotter";
    }

    /** Stops the thread after the image in hand, if any, is written. */
    @Override
    public synchronized void close()
    {
        if (runner != null)
        {
            final long deadlineNs = System.nanoTime() + 30_000_000_000L;
            while (imageReady.get() && System.nanoTime() < deadlineNs)
            {
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
            }
            runner.close();
            runner = null;
        }
    }

    /**
     * Graceful stop: stops the thread as {@link #close()} does, then writes one last snapshot at the ledger's
     * last applied index when that is newer than the last one written, so that the next start replays
     * nothing. Only once the pipeline has stopped: the caller's thread then owns the ledger. Failures are
     * logged, not thrown: the journal holds every command, the next start just replays more.
     */
    public synchronized void closeWithFinalSnapshot(final Ledger ledger)
    {
        close();
        final long index = ledger.lastJournalIndex();
        if (!config.atStop() || index <= writtenIndex.get() || ledger.isInsideBatch())
        {
            return;
        }
        final long startNs = System.nanoTime();
        try
        {
            ledger.copyTo(image);
            final long stateHash = image.stateHash();
            final java.nio.file.Path file = directory.write(image, stateHash, format);
            recordWritten(index, 0, System.nanoTime() - startNs);
            LOG.info("snapshot at stop, journal index {} (state hash {}): {} in {} ms", index, StateDigest.hex(stateHash), file,
                (System.nanoTime() - startNs) / 1_000_000);
        }
        catch (final java.io.IOException | RuntimeException ex)
        {
            failedCount.lazySet(failedCount.get() + 1);
            LOG.warn("no snapshot at stop (the next start replays the journal after the last one): {}", ex.toString());
        }
    }
}
