package dev.tally.snapshotter;

import dev.tally.ledger.Ledger;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.image.StateImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
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
 *   SNAPSHOT command applied ──► onCommand:            doWork: image ready?
 *     writer idle? copy the ledger into the image ──►    state hash of the image, encode + CRC32C,
 *     (array copies of the live tables), hand it over    temp file, force, rename, fsync dir, retention
 * </pre>
 *
 * The business thread pays only for the copy (memory bandwidth: ~0.2 GB for a million accounts and a
 * million keys, see docs/SNAPSHOTS.md); everything slow happens here. A SNAPSHOT command that arrives
 * while the previous image is still being written is let through without a copy (it changed nothing).
 * The image is one reused {@link StateImage}: the only allocation on the business thread is when the
 * state has outgrown it since the last snapshot.
 */
public final class Snapshotter implements Agent, AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(Snapshotter.class);

    private final SnapshotDirectory directory;
    private final SnapshotFormat format = new SnapshotFormat();
    private final StateImage image = new StateImage();
    /** Set by the business thread once the image is copied, cleared here once it is written: one owner at a time. */
    private final AtomicBoolean imageReady = new AtomicBoolean();
    /** Journal index of the last command the business thread applied (for the publisher's schedule). */
    private final AtomicLong appliedIndex = new AtomicLong();
    private final AtomicLong writtenIndex = new AtomicLong();
    private final AtomicLong skippedCount = new AtomicLong();
    private long copyNs;
    private AgentRunner runner;

    public Snapshotter(final SnapshotDirectory directory, final long lastSnapshotIndex)
    {
        this.directory = directory;
        writtenIndex.set(lastSnapshotIndex);
    }

    /** Starts the writer thread ("tally-snapshotter", daemon). */
    public synchronized Snapshotter start()
    {
        runner = new AgentRunner(new SleepingMillisIdleStrategy(1), ex -> LOG.error("snapshot writer failed", ex), null, this);
        AgentRunner.startOnThread(runner, r ->
        {
            final Thread t = new Thread(r, "tally-snapshotter");
            t.setDaemon(true);
            return t;
        });
        return this;
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
            return;
        }
        if (imageReady.get())
        {
            skippedCount.incrementAndGet();
            return;
        }
        final long startNs = System.nanoTime();
        ledger.copyTo(image);
        copyNs = System.nanoTime() - startNs;
        imageReady.set(true);
    }

    @Override
    public int doWork() throws IOException
    {
        if (!imageReady.get())
        {
            return 0;
        }
        try
        {
            final long startNs = System.nanoTime();
            final long stateHash = image.stateHash();
            final Path file = directory.write(image, stateHash, format);
            writtenIndex.set(image.lastJournalIndex());
            LOG.info("snapshot at journal index {} ({} MB, state hash {}): copied in {} ms on the business thread, hashed and written in {} ms",
                image.lastJournalIndex(), SnapshotFormat.fileLength(image) >> 20, Long.toHexString(stateHash), copyNs / 1_000_000,
                (System.nanoTime() - startNs) / 1_000_000);
            LOG.debug("snapshot file {}", file);
        }
        finally
        {
            imageReady.set(false);
        }
        return 1;
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
                Thread.onSpinWait();
                Thread.yield();
            }
            runner.close();
            runner = null;
        }
    }
}
