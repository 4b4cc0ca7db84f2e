package dev.tally.coldindex;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ControlledMessageHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cold index's writer thread ("tally-cold-writer"): reads the units the business thread recorded
 * ({@link ColdRecorder}), files their items into a RocksDB write batch, and commits it with the watermark, the last
 * unit it holds whole, durably (a synced write-ahead log); then the journal stage may let memory go up to it.
 *
 * <p>It takes a unit only once the journal holds it on stable storage (its last index at or below the journal's
 * {@code stableIndex()}): the business thread applies a batch while the journal is still forcing it, and the cold index
 * must never hold a command that a power loss can take from the journal. Units at or below the watermark it found at
 * start are skipped: a restart replays them to rebuild memory, and they are in already (refiling an older state of a
 * transfer would move it back).
 *
 * <p>A commit RocksDB refuses (a full or failing disk) is retried with the same batch, after 1 s, doubling to 30 s; the
 * watermark stays where it was meanwhile, and the journal stage refuses commands once the lag bound is reached. Each
 * commit takes what arrived while the last one was being synced: under load, thousands of items a sync.
 */
public final class ColdIndexWriter implements Agent, AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(ColdIndexWriter.class);
    /** Longest nap when nothing arrives (as the PostgreSQL writer's): a busy writer restarts its backoff at 10 µs. */
    private static final long IDLE_PARK_MAX_NS = TimeUnit.MILLISECONDS.toNanos(20);
    private static final int READ_LIMIT_RECORDS = 65_536;
    /** Items of one commit at most: bounds the write batch's memory (about 100 bytes an item). */
    static final int COMMIT_ITEMS_MAX = 200_000;
    private static final long RETRY_MIN_NS = TimeUnit.SECONDS.toNanos(1);
    private static final long RETRY_MAX_NS = TimeUnit.SECONDS.toNanos(30);

    private final ColdIndex index;
    private final ColdChannel channel;
    private final OneToOneRingBuffer ring;
    private final ColdWriter writer;
    private final ColdRecorder recorder;
    private final ControlledMessageHandler handler = this::onRecord;
    private final long[] keyRecord = new long[ColdRecords.KEY_LONGS];
    private final long[] transferRecord = new long[ColdRecords.TRANSFER_LONGS];
    private final byte[] referenceText = new byte[dev.tally.ledger.LedgerLimits.REFERENCE_LENGTH_MAX];
    private volatile LongSupplier stableIndex = () -> Long.MAX_VALUE;
    private AgentRunner runner;

    // writer thread state
    private long stableLimit;
    /** The last unit taken into a batch or committed: units at or below it are in, or skipped as in. */
    private long acceptedIndex;
    private boolean inUnit;
    private boolean skippingUnit;
    private long unitLastIndex;
    private long unitTimeNs;
    /** The last whole unit in the batch, the watermark its commit writes; 0 while the batch holds none. */
    private long batchLastIndex;
    private long batchLastTimeNs;
    private long retryAtNs;
    private long retryPauseNs = RETRY_MIN_NS;

    // figures: written by the writer thread, read by any
    private volatile long itemsFiled;
    private volatile long commits;
    private volatile long commitNanos;
    private volatile long unitsSkipped;
    private volatile long commitFailures;
    private volatile boolean failing;

    /**
     * @param ringBytes the ring between the business thread and this one, a power of two: what the business thread
     *                  may record ahead of this thread (about 250 bytes a transfer).
     */
    public ColdIndexWriter(final ColdIndex index, final int ringBytes)
    {
        this.index = index;
        this.channel = new ColdChannel(ringBytes, index.watermarkIndex());
        this.ring = channel.ring;
        this.writer = index.writer();
        this.recorder = new ColdRecorder(channel);
        this.acceptedIndex = index.watermarkIndex();
    }

    /** @return the business thread's side: one recorder, used by that thread alone. */
    public ColdRecorder recorder()
    {
        return recorder;
    }

    /**
     * Makes the writer take only units whose last command is at or below {@code journalStableIndex} (the journal's
     * {@code stableIndex()}, read from this thread). Call before {@link #start()}.
     */
    public void takeUnitsUpTo(final LongSupplier journalStableIndex)
    {
        this.stableIndex = journalStableIndex;
    }

    /** Starts the writer thread ("tally-cold-writer", daemon). */
    public synchronized ColdIndexWriter start()
    {
        if (runner != null)
        {
            throw new IllegalStateException("already started");
        }
        runner = new AgentRunner(new BackoffIdleStrategy(10, 20, TimeUnit.MICROSECONDS.toNanos(10), IDLE_PARK_MAX_NS),
            ex -> LOG.error("cold index writer error", ex), null, this);
        AgentRunner.startOnThread(runner, r ->
        {
            final Thread t = new Thread(r, "tally-cold-writer");
            t.setDaemon(true);
            return t;
        });
        return this;
    }

    @Override
    public String roleName()
    {
        return "tally-cold-writer";
    }

    @Override
    public int doWork()
    {
        final long now = System.nanoTime();
        if (retryAtNs != 0)
        {
            return now - retryAtNs < 0 ? 0 : commit();
        }
        int work = 0;
        if (inUnit || writer.pending() < COMMIT_ITEMS_MAX)
        {
            stableLimit = stableIndex.getAsLong();
            work = ring.controlledRead(handler, READ_LIMIT_RECORDS);
        }
        if (batchLastIndex > 0 && !inUnit)
        {
            work += commit();
        }
        return work;
    }

    private ControlledMessageHandler.Action onRecord(final int type, final MutableDirectBuffer buffer, final int at, final int length)
    {
        switch (type)
        {
            case ColdChannel.UNIT_BEGIN:
            {
                final long lastIndex = buffer.getLong(at);
                if (lastIndex > stableLimit && lastIndex > acceptedIndex)
                {
                    return ControlledMessageHandler.Action.ABORT;   // not on stable storage yet: read again next cycle
                }
                inUnit = true;
                skippingUnit = lastIndex <= acceptedIndex;
                unitLastIndex = lastIndex;
                unitTimeNs = buffer.getLong(at + Long.BYTES);
                if (skippingUnit)
                {
                    unitsSkipped++;
                }
                break;
            }
            case ColdChannel.KEY:
                if (!skippingUnit)
                {
                    getLongs(buffer, at + 2 * Long.BYTES, keyRecord);
                    writer.key(buffer.getLong(at), buffer.getLong(at + Long.BYTES), keyRecord);
                }
                break;
            case ColdChannel.REFERENCE:
                if (!skippingUnit)
                {
                    writer.reference(buffer.getLong(at), buffer.getLong(at + Long.BYTES), buffer.getLong(at + 2 * Long.BYTES),
                        buffer.getLong(at + 3 * Long.BYTES));
                }
                break;
            case ColdChannel.TRANSFER:
                if (!skippingUnit)
                {
                    getLongs(buffer, at + Long.BYTES, transferRecord);
                    writer.transfer(buffer.getLong(at), transferRecord);
                }
                break;
            case ColdChannel.REFERENCE_TEXT:
                if (!skippingUnit)
                {
                    buffer.getBytes(at + Long.BYTES, referenceText, 0, length - Long.BYTES);
                    writer.transferReference(buffer.getLong(at), referenceText, length - Long.BYTES);
                }
                break;
            case ColdChannel.UNIT_END:
                if (!inUnit || buffer.getLong(at) != unitLastIndex)
                {
                    throw new IllegalStateException("cold index ring: a unit ends at " + buffer.getLong(at) + " inside " +
                        (inUnit ? "the unit ending at " + unitLastIndex : "no unit"));
                }
                inUnit = false;
                if (!skippingUnit)
                {
                    acceptedIndex = unitLastIndex;
                    batchLastIndex = unitLastIndex;
                    batchLastTimeNs = unitTimeNs;
                    if (writer.pending() >= COMMIT_ITEMS_MAX)
                    {
                        return ControlledMessageHandler.Action.BREAK;
                    }
                }
                break;
            default:
                throw new IllegalStateException("cold index ring: unknown record type " + type);
        }
        return ControlledMessageHandler.Action.CONTINUE;
    }

    private static void getLongs(final MutableDirectBuffer buffer, final int at, final long[] into)
    {
        for (int i = 0; i < into.length; i++)
        {
            into[i] = buffer.getLong(at + i * Long.BYTES);
        }
    }

    private int commit()
    {
        final long startNs = System.nanoTime();
        final int items = writer.pending();
        try
        {
            writer.commit(batchLastIndex, batchLastTimeNs);
        }
        catch (final UncheckedIOException ex)
        {
            commitFailures++;
            failing = true;
            retryAtNs = System.nanoTime() + retryPauseNs;
            LOG.error("cold index commit failed; retrying in {} ms, its watermark stays at {} (commands are refused once it " +
                "is too far behind)", TimeUnit.NANOSECONDS.toMillis(retryPauseNs), index.watermarkIndex(), ex);
            retryPauseNs = Math.min(RETRY_MAX_NS, 2 * retryPauseNs);
            return 1;
        }
        if (failing)
        {
            LOG.info("cold index commit succeeded again, watermark {}", batchLastIndex);
        }
        failing = false;
        retryAtNs = 0;
        retryPauseNs = RETRY_MIN_NS;
        batchLastIndex = 0;
        itemsFiled += items;
        commits++;
        commitNanos += System.nanoTime() - startNs;
        return 1;
    }

    /**
     * Waits until the watermark reaches {@code journalIndex} (a graceful stop, tests).
     *
     * @return true when it did, false on timeout.
     */
    public boolean awaitWatermark(final long journalIndex, final Duration timeout)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (index.watermarkIndex() < journalIndex)
        {
            if (System.nanoTime() - deadline > 0)
            {
                return false;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        return true;
    }

    /** Stops the writer thread; what it did not commit is filed again from the journal at the next start. */
    @Override
    public synchronized void close()
    {
        if (runner != null)
        {
            runner.close();
            runner = null;
        }
        writer.close();
    }

    // ---- figures (any thread) ----

    /** @return the last journal index whose items are all in the cold index, durably. */
    public long watermark()
    {
        return index.watermarkIndex();
    }

    /** @return journal commands recorded but not yet committed. */
    public long lagCommands()
    {
        return Math.max(0, channel.offeredIndex.get() - index.watermarkIndex());
    }

    public long itemsFiled()
    {
        return itemsFiled;
    }

    public long commits()
    {
        return commits;
    }

    /** @return nanoseconds spent committing (the synced write-ahead log included), summed. */
    public long commitNanos()
    {
        return commitNanos;
    }

    public long unitsSkipped()
    {
        return unitsSkipped;
    }

    public long commitFailures()
    {
        return commitFailures;
    }

    /** @return true while commits fail or the recorder has stopped: the watermark is not moving. */
    public boolean degraded()
    {
        return failing || channel.recorderStopped;
    }
}
