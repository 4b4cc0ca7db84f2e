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
import java.util.HashSet;
import java.util.Set;
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
 *  business thread                         writer thread (this agent)                        PostgreSQL
 *  EffectRecorder.onUnit ──► ring ──► read whole units ──► WriteBatch ──► lock watermark, COPY ×7, UPDATE ×2, watermark, COMMIT
 * </pre>
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

    private final Database database;
    private final WriterConfig config;
    private final EffectChannel channel;
    private final OneToOneRingBuffer ring;
    private final WriteBatch batch = new WriteBatch();
    private final ControlledMessageHandler reader = this::onRecord;
    private final Set<Integer> partitionedMonths = new HashSet<>();
    private final long batchIntervalNs;
    private AgentRunner runner;
    private boolean recorderCreated;
    /** The journal's stable index ({@link #takeUnitsUpTo}); units past it wait in the ring. */
    private volatile LongSupplier stableIndex = () -> Long.MAX_VALUE;

    // writer thread state
    private Connection connection;
    private BatchSql sql;
    /** The highest unit index accepted into a batch or committed: units at or below it are duplicates. */
    private long acceptedIndex;
    /** {@link #stableIndex} as read at the start of this duty cycle. */
    private long stableLimit;
    private boolean skippingUnit;
    /** Write with staging and ON CONFLICT DO NOTHING (see {@link BatchSql}) until a batch finds no duplicate. */
    private boolean deduplicate;
    private long retryAtNs;
    private long backoffMs;

    // metrics: written by the writer thread only, read by any
    private volatile long rowsWritten;
    private volatile long entriesWritten;
    private volatile long batchesCommitted;
    private volatile long batchRetries;
    private volatile long unitsSkipped;
    private volatile long deduplicatedBatches;
    private volatile long lastBatchNs;

    private LedgerWriter(final Database database, final WriterConfig config, final long watermark, final long watermarkTimeNs)
    {
        this.database = database;
        this.config = config;
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
            closeConnection();
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
        try
        {
            connect();
            final long nowMs = System.currentTimeMillis();
            ensurePartitions(nowMs, nowMs);
        }
        catch (final SQLException ex)
        {
            LOG.warn("PostgreSQL unavailable at writer start, will retry: {}", ex.getMessage());
            closeConnection();
        }
    }

    @Override
    public int doWork()
    {
        final long now = System.nanoTime();
        if (retryAtNs != 0)
        {
            return now - retryAtNs < 0 ? 0 : flush(now);
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
        closeConnection();
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

    private int flush(final long startNs)
    {
        try
        {
            if (sql == null)
            {
                connect();
            }
            ensurePartitions(Math.floorDiv(batch.minTimeNs, 1_000_000L), Math.floorDiv(batch.maxTimeNs, 1_000_000L));
            write();
            faults.afterCommit(batchesCommitted, batchRetries);
        }
        catch (final BatchSql.AlreadyCommitted ex)
        {
            rollbackQuietly();
            LOG.info("batch of {} units up to journal index {} found committed by an earlier attempt (its reply was lost): {}",
                batch.units, batch.lastUnitIndex, ex.getMessage());
        }
        catch (final SQLException | RuntimeException ex)
        {
            rollbackQuietly();
            if (isFatal(ex))
            {
                fail(ex);
            }
            retryLater(ex);
            return 0;
        }
        lastBatchNs = System.nanoTime() - startNs;
        final int rows = batch.rows();
        rowsWritten += rows;
        entriesWritten += batch.entries;
        batchesCommitted++;
        channel.committedTimeNs.lazySet(batch.lastUnitTimeNs);
        channel.committedIndex.set(batch.lastUnitIndex);
        batch.clear();
        retryAtNs = 0;
        backoffMs = config.retryBackoffMinMs();
        return rows;
    }

    /**
     * Direct mode first; a duplicate key there means the database holds rows above its watermark, so the same
     * batch is written again deduplicating, and later batches too until one finds no duplicate.
     */
    private void write() throws SQLException
    {
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
                rollbackQuietly();
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

    private void retryLater(final Exception ex)
    {
        closeConnection();
        batchRetries++;
        if (batchRetries == 1 || Long.bitCount(batchRetries) == 1)
        {
            LOG.warn("PostgreSQL refused a batch of {} units (retry {} in {} ms, lag {} commands): {}", batch.units, batchRetries,
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
        closeConnection();
        throw new AgentTerminationException(ex);
    }

    private void connect() throws SQLException
    {
        connection = database.openWriterConnection();
        sql = new BatchSql(connection);
    }

    /**
     * Creates the monthly partitions of the journaled months a batch touches and of the
     * {@value #PARTITION_MONTHS_AHEAD} months after the last one, calling the database only when one of them
     * is not known to exist yet.
     */
    private void ensurePartitions(final long fromMs, final long toMs) throws SQLException
    {
        final YearMonth first = YearMonth.from(Instant.ofEpochMilli(fromMs).atOffset(ZoneOffset.UTC));
        final YearMonth until = YearMonth.from(Instant.ofEpochMilli(toMs).atOffset(ZoneOffset.UTC)).plusMonths(PARTITION_MONTHS_AHEAD);
        for (YearMonth m = first; !m.isAfter(until); m = m.plusMonths(1))
        {
            if (!partitionedMonths.contains(monthKey(m)))
            {
                final int months = (int)first.until(until, java.time.temporal.ChronoUnit.MONTHS);
                sql.ensurePartitions(first.atDay(1).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli(), months);
                for (int i = 0; i <= months; i++)
                {
                    partitionedMonths.add(monthKey(first.plusMonths(i)));
                }
                return;
            }
        }
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

    private void rollbackQuietly()
    {
        if (connection != null)
        {
            try
            {
                connection.rollback();
            }
            catch (final SQLException ignored)
            {
                // the connection is going away anyway
            }
        }
    }

    private void closeConnection()
    {
        sql = null;
        if (connection != null)
        {
            try
            {
                connection.close();
            }
            catch (final SQLException ignored)
            {
                // nothing left to do with it
            }
            connection = null;
        }
    }
}
