package dev.tally.persistence.writer;

import dev.tally.persistence.db.Database;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import static dev.tally.persistence.writer.EffectRecords.*;

/**
 * The batched PostgreSQL writer: an Agrona {@link Agent} on its own thread (never the business thread)
 * that drains the effect ring, groups whole units into batches of up to {@link WriterConfig#batchRowsMax()}
 * rows or {@link WriterConfig#batchIntervalMs()} ms, and writes each batch — accounts, balances (one row
 * per touched sub-balance, its last value), holds, transfers, ledger entries, outbox rows and the
 * watermark — in ONE transaction ({@link BatchSql}).
 *
 * <pre>
 *  business thread                         writer thread (this agent)                        PostgreSQL, two connections
 *  EffectRecorder.onUnit ──► ring ──► read whole units ──► WriteBatch N+1 ──► COPY ×7 (staging, no lock)   on lane B
 *                                                          commit thread:     batch N: lock watermark, UPDATE ×2,
 *                                                                             watermark, COMMIT              on lane A
 * </pre>
 *
 * <p>Pipelined ({@link #flush}): a batch's COPY overlaps the previous batch's updates and commit, and a batch's second
 * half starts only once the previous batch committed, so the batches commit in journal order.
 *
 * <p>Crash safety: the watermark moves in the same transaction as the rows, so PostgreSQL always holds
 * exactly the effects of the units up to its watermark. The writer commits with {@code synchronous_commit = on}, so a
 * crash of PostgreSQL alone (restarted under a running Tally by the embedded database's supervisor, or by whoever runs
 * an external one) takes back no batch the writer let go of; only a failover to a standby that lacked them, or a
 * restore, can, and the writer then stops. At a restart of Tally the gateway replays the journal and feeds units above
 * the watermark again; rows keyed by deterministic ids make any overlap harmless.
 *
 * <p>Outages: a batch PostgreSQL refuses for a transient reason (connection lost, server stopped,
 * deadlock, out of resources) is kept and retried with exponential backoff; meanwhile the writer reads
 * nothing more, the ring fills and {@link #overLagBound()} tells the gateway to refuse writes. An error
 * retrying cannot fix (a CHECK or UNIQUE violation, the database behind or ahead of the ledger) stops the
 * writer: {@link #failure()} is set and {@code overLagBound()} stays true.
 *
 * <p>Lifecycle: {@link #create} (reads the watermark; the database must be reachable), {@link #createRecorder},
 * {@link #start}, … {@link #awaitWatermark} / {@link #close}.
 */
public final class LedgerWriter implements Agent, AutoCloseable
{
    /**
     * Longest nap of the writer thread when no effects arrive: after 20 ms of nothing the read model's lag for
     * the next unit grows by at most this much (a busy writer never naps that long: the backoff restarts at
     * 10 µs after every unit). At 1 ms an idle server woke this thread 1,000 times a second, ≈ 1.3 % of a core.
     */
    private static final long IDLE_PARK_MAX_NS = TimeUnit.MILLISECONDS.toNanos(20);

    /** Ring records read per duty cycle at most. */
    private static final int READ_LIMIT_RECORDS = 65_536;
    /** Months of partitions created ahead of the newest journaled time seen. */
    private static final int PARTITION_MONTHS_AHEAD = 2;
    private static final Logger LOG = LoggerFactory.getLogger(LedgerWriter.class);

    private final WriterConfig config;
    private final EffectChannel channel;
    private final OneToOneRingBuffer ring;
    /** The two connections the writer alternates between, each with its batch. */
    private final WriterLane[] lanes;
    private final ControlledMessageHandler reader = this::onRecord;
    private final Set<Integer> partitionedMonths = new HashSet<>();
    private final long batchIntervalNs;
    private AgentRunner runner;
    private boolean recorderCreated;
    /** The journal's stable index ({@link #takeUnitsUpTo}); units past it wait in the ring. */
    private volatile LongSupplier stableIndex = () -> Long.MAX_VALUE;

    // writer thread state
    /** The lane whose batch the ring's units go into. */
    private int filling;
    /** {@code lanes[filling].batch}. */
    private WriteBatch batch;
    /** The commit thread's work: the other lane's batch finishing its transaction, or null. */
    private Future<?> committing;
    private WriterLane committingLane;
    /** Lanes whose batches this thread writes itself, first to last, before the pipeline runs again (retries). */
    private final ArrayDeque<WriterLane> inOrder = new ArrayDeque<>(2);
    private ExecutorService committer;
    /** The highest unit index accepted into a batch or committed: units at or below it are duplicates. */
    private long acceptedIndex;
    /** {@link #stableIndex} as read at the start of this duty cycle. */
    private long stableLimit;
    private boolean skippingUnit;
    /** Write with staging and ON CONFLICT DO NOTHING (see {@link BatchSql}) until a batch finds no duplicate. */
    private boolean deduplicate;
    private long retryAtNs;
    private long backoffMs;

    // metrics: written by the writer thread, or by the commit thread between a hand-off and its completion; read by any
    private volatile long rowsWritten;
    private volatile long entriesWritten;
    private volatile long batchesCommitted;
    private volatile long batchesPipelined;
    private volatile long batchRetries;
    private volatile long unitsSkipped;
    private volatile long deduplicatedBatches;
    private volatile long lastBatchNs;

    private LedgerWriter(final Database database, final WriterConfig config, final long watermark, final long watermarkTimeNs)
    {
        this.config = config;
        lanes = new WriterLane[] {new WriterLane(database), new WriterLane(database)};
        batch = lanes[filling].batch;
        channel = new EffectChannel(config, watermark, watermarkTimeNs);
        ring = channel.ring;
        acceptedIndex = watermark;
        batchIntervalNs = TimeUnit.MILLISECONDS.toNanos(config.batchIntervalMs());
        backoffMs = config.retryBackoffMinMs();
    }

    /**
     * Reads the watermark and builds the writer (not yet running). Needs the database reachable and migrated.
     *
     * @throws IllegalStateException when the watermark cannot be read.
     */
    public static LedgerWriter create(final Database database, final WriterConfig config)
    {
        try (Connection c = database.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT journal_index, journal_time FROM ledger_watermark"))
        {
            if (!rs.next())
            {
                throw new IllegalStateException("ledger_watermark has no row: was the schema migrated?");
            }
            final long index = rs.getLong(1);
            final java.sql.Timestamp time = rs.getTimestamp(2);
            final long timeNs = time == null ? 0 : time.getTime() * 1_000_000L;
            LOG.info("PostgreSQL watermark: journal index {}", index);
            return new LedgerWriter(database, config, index, timeNs);
        }
        catch (final SQLException ex)
        {
            throw new IllegalStateException("could not read the PostgreSQL watermark", ex);
        }
    }

    /**
     * @return the recorder the business thread feeds; units at or below {@code skipUpToIndex} are skipped
     * (pass {@link #watermark()} at startup). One per writer: the ring has a single producer.
     */
    public synchronized EffectRecorder createRecorder(final long skipUpToIndex)
    {
        if (recorderCreated)
        {
            throw new IllegalStateException("a recorder already feeds this writer (single producer)");
        }
        recorderCreated = true;
        return new EffectRecorder(channel, skipUpToIndex);
    }

    /**
     * Refuses a replay that cannot converge: the ledger must have applied, through the recorder, every command
     * after the watermark, so it must start (empty, or from a snapshot) at or below it.
     *
     * @param ledgerStartIndex the journal index the ledger stands at before replay (0, or the snapshot's).
     */
    public void requireReplayableFrom(final long ledgerStartIndex)
    {
        if (ledgerStartIndex > watermark())
        {
            throw new IllegalStateException("the ledger starts at journal index " + ledgerStartIndex +
                " but PostgreSQL holds effects only up to " + watermark() +
                ": replay from an older snapshot (or the journal's start) so the commands in between reach PostgreSQL");
        }
    }

    /**
     * Makes the writer take only units whose last command is at or below {@code journalStableIndex} (the journal's
     * {@code stableIndex()}, read from this thread): the business thread applies, and records, a batch while the
     * journaler is still forcing it, and PostgreSQL must never hold a command that a power loss can take from the
     * journal (a later start would give its journal index to another command, and the rows keyed by it would
     * disagree). Without it (tools, tests whose units need no journal) every unit is taken at once. Call before
     * {@link #start()}.
     */
    public void takeUnitsUpTo(final LongSupplier journalStableIndex)
    {
        this.stableIndex = journalStableIndex;
    }

    /** Starts the writer thread ("tally-pg-writer", daemon). */
    public synchronized void start()
    {
        if (runner != null)
        {
            throw new IllegalStateException("already started");
        }
        runner = new AgentRunner(
            new BackoffIdleStrategy(10, 20, TimeUnit.MICROSECONDS.toNanos(10), IDLE_PARK_MAX_NS),
            ex -> LOG.error("PostgreSQL writer error", ex), null, this);
        AgentRunner.startOnThread(runner, r ->
        {
            final Thread t = new Thread(r, "tally-pg-writer");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Waits until the watermark reaches {@code journalIndex} (graceful shutdown, verify, tests).
     *
     * @return true when it did, false on timeout or when the writer failed.
     */
    public boolean awaitWatermark(final long journalIndex, final Duration timeout)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (watermark() < journalIndex)
        {
            if (failure() != null || System.nanoTime() - deadline > 0)
            {
                return false;
            }
            try
            {
                Thread.sleep(1);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    /** Stops the writer thread. Units not yet committed stay in the journal and are replayed at the next start. */
    @Override
    public synchronized void close()
    {
        if (runner != null)
        {
            runner.close();
            runner = null;
        }
        else
        {
            closeConnections();
        }
    }

    // ---- what the gateway reads (any thread) ----

    /** @return the last journal index whose effects are committed in PostgreSQL. */
    public long watermark()
    {
        return channel.committedIndex.get();
    }

    /** @return journal commands recorded but not yet committed. */
    public long lagCommands()
    {
        return channel.lagCommands();
    }

    /** @return journaled time between the newest recorded unit and the watermark, nanoseconds. */
    public long lagNs()
    {
        return channel.lagNs();
    }

    /** @return true when the gateway must refuse writes (see {@link EffectRecorder#overLagBound()}). */
    public boolean overLagBound()
    {
        return channel.overLagBound();
    }

    /** @return the error that stopped the writer, or null while it runs (or retries). */
    public Throwable failure()
    {
        return channel.writerFailure.get();
    }

    /** @return rows inserted or updated, all tables (counted as staged). */
    public long rowsWritten()
    {
        return rowsWritten;
    }

    public long entriesWritten()
    {
        return entriesWritten;
    }

    public long batchesCommitted()
    {
        return batchesCommitted;
    }

    /** @return batches whose rows streamed in while the previous batch committed on the other connection. */
    public long batchesPipelined()
    {
        return batchesPipelined;
    }

    /** @return batches PostgreSQL refused for a transient reason, each retried. */
    public long batchRetries()
    {
        return batchRetries;
    }

    /** @return units dropped because they were at or below what was already accepted (duplicates). */
    public long unitsSkipped()
    {
        return unitsSkipped;
    }

    /** @return batches written in deduplicating mode (rows above the watermark were found). */
    public long deduplicatedBatches()
    {
        return deduplicatedBatches;
    }

    /** @return duration of the last committed batch (COPY to commit), nanoseconds. */
    public long lastBatchNs()
    {
        return lastBatchNs;
    }

    /** @return bytes of ring in use right now. */
    public int ringBytesUsed()
    {
        return ring.size();
    }

    // ---- the agent ----

    @Override
    public String roleName()
    {
        return "tally-pg-writer";
    }

    @Override
    public void onStart()
    {
        committer = Executors.newSingleThreadExecutor(r ->
        {
            final Thread t = new Thread(r, "tally-pg-writer-commit");
            t.setDaemon(true);
            return t;
        });
        try
        {
            final long nowNs = System.currentTimeMillis() * 1_000_000L;
            ensurePartitions(lanes[0], nowNs, nowNs);
        }
        catch (final SQLException ex)
        {
            LOG.warn("PostgreSQL unavailable at writer start, will retry: {}", ex.getMessage());
            closeConnections();
        }
    }

    @Override
    public int doWork()
    {
        final long now = System.nanoTime();
        if (retryAtNs != 0)
        {
            return now - retryAtNs < 0 ? 0 : writeInOrder(now);
        }
        if (committing != null && committing.isDone() && !awaitCommitting())
        {
            return writeInOrder(now);   // the commit thread's batch failed: written again here, before anything newer
        }
        int work = 0;
        try
        {
            if (batch.inUnit() || batch.rows() < config.batchRowsMax())
            {
                stableLimit = stableIndex.getAsLong();
                // Mid-unit, the recorder is writing the rest right now: read on until the unit ends.
                work = ring.controlledRead(reader, READ_LIMIT_RECORDS);
            }
        }
        catch (final RuntimeException ex)
        {
            fail(ex);   // broken framing: a bug, never retried
        }
        if (batch.units > 0 && !batch.inUnit() &&
            (batch.rows() >= config.batchRowsMax() || now - batch.openedAtNs >= batchIntervalNs))
        {
            work += flush(now);
        }
        return work;
    }

    @Override
    public void onClose()
    {
        closeConnections();
        if (committer != null)
        {
            committer.shutdownNow();
        }
    }

    private ControlledMessageHandler.Action onRecord(
        final int type, final MutableDirectBuffer buffer, final int index, final int length)
    {
        switch (type)
        {
            case UNIT_BEGIN:
            {
                final long lastIndex = buffer.getLong(index + UNIT_LAST_INDEX);
                if (lastIndex > stableLimit && lastIndex > acceptedIndex)
                {
                    return ControlledMessageHandler.Action.ABORT;   // not forced yet: read again next cycle
                }
                skippingUnit = lastIndex <= acceptedIndex;
                if (skippingUnit)
                {
                    unitsSkipped++;
                }
                else
                {
                    batch.beginUnit(lastIndex, buffer.getLong(index + UNIT_TIMESTAMP), batch.units == 0 ? System.nanoTime() : 0);
                }
                break;
            }
            case ENTRY:
                if (!skippingUnit)
                {
                    batch.addEntry(buffer, index);
                }
                break;
            case BALANCE:
                if (!skippingUnit)
                {
                    batch.addBalance(buffer, index);
                }
                break;
            case EVENT:
                if (!skippingUnit)
                {
                    batch.addEvent(buffer, index);
                }
                break;
            case UNIT_END:
            {
                if (skippingUnit)
                {
                    skippingUnit = false;
                    break;
                }
                final long lastIndex = buffer.getLong(index + UNIT_LAST_INDEX);
                batch.endUnit(lastIndex);
                acceptedIndex = lastIndex;
                if (batch.rows() >= config.batchRowsMax())
                {
                    return ControlledMessageHandler.Action.BREAK;
                }
                break;
            }
            default:
                throw new IllegalStateException("unknown ring record type " + type);
        }
        return ControlledMessageHandler.Action.CONTINUE;
    }

    /**
     * Writes the filling lane's batch. Pipelined when it can be: this thread COPYs the batch's rows on the lane's
     * connection while the commit thread finishes the previous batch on the other, then hands the batch over and fills
     * the other lane. Batches commit strictly one after the other (a batch's second half starts only once the previous
     * batch committed), so PostgreSQL holds exactly the units up to its watermark, as with one connection.
     *
     * <p>Written in order on this thread instead: a batch that must see rows of the previous one (holds it created,
     * months it partitioned), every batch while deduplicating, and a batch whose first half failed, or that follows
     * one whose commit failed, so that retries and their error handling stay those of a single connection.
     */
    private int flush(final long startNs)
    {
        final WriterLane lane = lanes[filling];
        try
        {
            final BatchSql sql = lane.sql();
            if (deduplicate || !partitionsKnown(batch.minTimeNs, batch.maxTimeNs) || sql.refersToEarlierHolds(batch))
            {
                return writeAfterCommitting(lane, startNs);
            }
            sql.stage(batch, false);
        }
        catch (final SQLException | RuntimeException ex)
        {
            lane.rollbackQuietly();
            return writeAfterCommitting(lane, startNs);   // where failures are told apart, retried or final
        }
        if (!awaitCommitting())
        {
            lane.rollbackQuietly();
            inOrder.addLast(lane);
            return writeInOrder(startNs);
        }
        final int rows = batch.rows();
        batchesPipelined++;
        committingLane = lane;
        committing = committer.submit(() -> commitOnCommitThread(lane, startNs));
        filling = 1 - filling;
        batch = lanes[filling].batch;
        return rows;
    }

    /** The commit thread's half of a pipelined batch: the watermark's check, the updates, the watermark, COMMIT. */
    private Void commitOnCommitThread(final WriterLane lane, final long startNs) throws SQLException
    {
        try
        {
            lane.sql().commitStaged(lane.batch, channel.committedIndex.get());
            faults.afterCommit(batchesCommitted, batchRetries);
        }
        catch (final SQLException | RuntimeException ex)
        {
            lane.rollbackQuietly();
            throw ex;
        }
        committed(lane, startNs);
        return null;
    }

    /**
     * Waits for the batch on the commit thread. If its transaction failed, the batch goes first into {@link #inOrder}
     * to be written again by this thread (a final error stops the writer at once).
     *
     * @return true when nothing was committing or its commit went through.
     */
    private boolean awaitCommitting()
    {
        if (committing == null)
        {
            return true;
        }
        final WriterLane lane = committingLane;
        Throwable failure = null;
        try
        {
            committing.get();
        }
        catch (final ExecutionException ex)
        {
            failure = ex.getCause();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new AgentTerminationException(ex);   // closing: onClose waits for the commit thread
        }
        committing = null;
        committingLane = null;
        if (failure == null)
        {
            return true;
        }
        inOrder.addFirst(lane);
        if (failure instanceof Exception && isFatal(failure))
        {
            fail((Exception)failure);
        }
        batchRetries++;
        LOG.warn("PostgreSQL refused the commit of a batch of {} units (retry {}, now in order): {}", lane.batch.units,
            batchRetries, failure.toString());
        return false;
    }

    private int writeAfterCommitting(final WriterLane lane, final long startNs)
    {
        awaitCommitting();
        inOrder.addLast(lane);
        return writeInOrder(startNs);
    }

    /**
     * Writes the batches of {@link #inOrder}, first to last, each in one transaction on this thread. A transient
     * failure leaves the rest queued and sets the retry time; a final one stops the writer.
     */
    private int writeInOrder(final long startNs)
    {
        int rows = 0;
        while (!inOrder.isEmpty())
        {
            final WriterLane lane = inOrder.peekFirst();
            final int written = writeNow(lane, startNs);
            if (written < 0)
            {
                return rows;
            }
            inOrder.pollFirst();
            rows += written;
        }
        retryAtNs = 0;
        backoffMs = config.retryBackoffMinMs();
        return rows;
    }

    /** @return rows committed, or -1 after a transient failure (the retry time is set). */
    private int writeNow(final WriterLane lane, final long startNs)
    {
        try
        {
            ensurePartitions(lane, lane.batch.minTimeNs, lane.batch.maxTimeNs);
            write(lane);
            faults.afterCommit(batchesCommitted, batchRetries);
        }
        catch (final BatchSql.AlreadyCommitted ex)
        {
            lane.rollbackQuietly();
            LOG.info("batch of {} units up to journal index {} found committed by an earlier attempt (its reply was lost): {}",
                lane.batch.units, lane.batch.lastUnitIndex, ex.getMessage());
        }
        catch (final SQLException | RuntimeException ex)
        {
            lane.rollbackQuietly();
            if (isFatal(ex))
            {
                fail(ex);
            }
            retryLater(lane, ex);
            return -1;
        }
        return committed(lane, startNs);
    }

    /** Publishes a committed batch: the watermark the gateway and readers see, the metrics; empties the lane. */
    private int committed(final WriterLane lane, final long startNs)
    {
        final WriteBatch b = lane.batch;
        lastBatchNs = System.nanoTime() - startNs;
        final int rows = b.rows();
        rowsWritten += rows;
        entriesWritten += b.entries;
        batchesCommitted++;
        channel.committedTimeNs.lazySet(b.lastUnitTimeNs);
        channel.committedIndex.set(b.lastUnitIndex);
        b.clear();
        return rows;
    }

    /**
     * Direct mode first; a duplicate key there means the database holds rows above its watermark, so the same
     * batch is written again deduplicating, and later batches too until one finds no duplicate.
     */
    private void write(final WriterLane lane) throws SQLException
    {
        final BatchSql sql = lane.sql();
        final WriteBatch batch = lane.batch;
        if (!deduplicate)
        {
            try
            {
                sql.write(batch, channel.committedIndex.get(), false);
                return;
            }
            catch (final SQLException ex)
            {
                if (!isDuplicateKey(ex))
                {
                    throw ex;
                }
                lane.rollbackQuietly();
                LOG.warn("rows above the watermark {} already exist (was the watermark moved back?): deduplicating from here",
                    channel.committedIndex.get());
                deduplicate = true;
            }
        }
        deduplicatedBatches++;
        if (sql.write(batch, channel.committedIndex.get(), true))
        {
            deduplicate = false;
        }
    }

    /** Failures injected by tests ({@link WriterFaults}); never fire otherwise. */
    private final WriterFaults faults = new WriterFaults();

    private static boolean isDuplicateKey(final SQLException ex)
    {
        for (SQLException s = ex; s != null; s = s.getNextException())
        {
            if ("23505".equals(s.getSQLState()) && !String.valueOf(s.getMessage()).contains("transfers_reference_unique"))
            {
                return true;
            }
        }
        return false;
    }

    private void retryLater(final WriterLane lane, final Exception ex)
    {
        closeConnections();
        batchRetries++;
        if (batchRetries == 1 || Long.bitCount(batchRetries) == 1)
        {
            LOG.warn("PostgreSQL refused a batch of {} units (retry {} in {} ms, lag {} commands): {}", lane.batch.units, batchRetries,
                backoffMs, channel.lagCommands(), ex.toString());
        }
        retryAtNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(backoffMs);
        backoffMs = Math.min(config.retryBackoffMaxMs(), backoffMs * 2);
    }

    private void fail(final Exception ex)
    {
        channel.writerFailure.compareAndSet(null, ex);
        LOG.error("PostgreSQL writer STOPPED at watermark {}: {} — the gateway must refuse writes; fix the cause and restart" +
            " (the journal keeps every effect)", channel.committedIndex.get(), ex.toString(), ex);
        closeConnections();
        throw new AgentTerminationException(ex);
    }

    /**
     * Creates the monthly partitions of the journaled months a batch touches and of the
     * {@value #PARTITION_MONTHS_AHEAD} months after the last one, calling the database (on the lane's connection, in a
     * transaction of its own) only when one of them is not known to exist yet.
     */
    private void ensurePartitions(final WriterLane lane, final long fromNs, final long toNs) throws SQLException
    {
        if (partitionsKnown(fromNs, toNs))
        {
            return;
        }
        final YearMonth first = month(fromNs);
        final YearMonth until = month(toNs).plusMonths(PARTITION_MONTHS_AHEAD);
        final int months = (int)first.until(until, java.time.temporal.ChronoUnit.MONTHS);
        lane.sql().ensurePartitions(first.atDay(1).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli(), months);
        for (int i = 0; i <= months; i++)
        {
            partitionedMonths.add(monthKey(first.plusMonths(i)));
        }
    }

    /** @return true when the partitions of the months from {@code fromNs} to {@value #PARTITION_MONTHS_AHEAD} after {@code toNs} are known to exist. */
    private boolean partitionsKnown(final long fromNs, final long toNs)
    {
        final YearMonth until = month(toNs).plusMonths(PARTITION_MONTHS_AHEAD);
        for (YearMonth m = month(fromNs); !m.isAfter(until); m = m.plusMonths(1))
        {
            if (!partitionedMonths.contains(monthKey(m)))
            {
                return false;
            }
        }
        return true;
    }

    private static YearMonth month(final long epochNs)
    {
        return YearMonth.from(Instant.ofEpochMilli(Math.floorDiv(epochNs, 1_000_000L)).atOffset(ZoneOffset.UTC));
    }

    private static int monthKey(final YearMonth month)
    {
        return month.getYear() * 12 + month.getMonthValue();
    }

    /**
     * Transient: an SQLException about the connection, the server's state or concurrency (retry).
     * Fatal: integrity (23), data (22) and schema (42) errors, internal errors (XX), and anything that is not an
     * SQLException (the writer's own consistency checks, bugs): retrying cannot change their outcome.
     */
    static boolean isFatal(final Throwable ex)
    {
        if (!(ex instanceof SQLException))
        {
            return true;
        }
        for (Throwable t = ex; t != null; t = t.getCause())
        {
            if (t instanceof SQLException)
            {
                for (SQLException s = (SQLException)t; s != null; s = s.getNextException())
                {
                    final String state = s.getSQLState();
                    if (state != null && (state.startsWith("23") || state.startsWith("22") || state.startsWith("42") ||
                        state.startsWith("XX")))
                    {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** Closes both lanes' connections, once the commit thread has finished what it was doing. */
    private void closeConnections()
    {
        if (committing != null)
        {
            try
            {
                committing.get();
            }
            catch (final ExecutionException ex)
            {
                // the batch was not committed: it stays in the journal and is written again at the next start
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
            committing = null;
            committingLane = null;
        }
        for (final WriterLane lane : lanes)
        {
            lane.close();
        }
    }
}
