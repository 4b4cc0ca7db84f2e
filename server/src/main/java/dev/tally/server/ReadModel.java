package dev.tally.server;

import dev.tally.gateway.http.ReadModelAccess;
import dev.tally.journal.EndWitness;
import dev.tally.journal.Journal;
import dev.tally.ledger.Ledger;
import dev.tally.ledger.command.Command;
import dev.tally.persistence.db.DataFolderLock;
import dev.tally.persistence.db.Database;
import dev.tally.persistence.db.EmbeddedDatabase;
import dev.tally.persistence.db.EmbeddedDatabaseSupervisor;
import dev.tally.persistence.read.AccountRow;
import dev.tally.persistence.read.AccountTransferRow;
import dev.tally.persistence.read.AccountTransfersFilter;
import dev.tally.persistence.read.AccountsFilter;
import dev.tally.persistence.read.HoldRow;
import dev.tally.persistence.read.LedgerReads;
import dev.tally.persistence.writer.EffectRecorder;
import dev.tally.persistence.writer.LedgerWriter;
import dev.tally.persistence.writer.WriterConfig;
import dev.tally.ledger.currency.CurrencyCode;
import dev.tally.persistence.read.AccountAtRow;
import dev.tally.persistence.read.EntryRow;
import dev.tally.persistence.read.TransferRow;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL read model as the server sees it: the database (embedded or not), the batched writer
 * and its hand-off, and the reads served from it. Started before the journal replay, so the effects of
 * every command past the watermark reach PostgreSQL as the replay feeds them. An embedded PostgreSQL is supervised
 * ({@link EmbeddedDatabaseSupervisor}): restarted when its postmaster dies, and reported down meanwhile.
 */
public final class ReadModel implements ReadModelAccess, AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(ReadModel.class);
    /**
     * A stop waits for the writer as long as it moves: it gives up when the watermark stood still for
     * {@link #DRAIN_STALL_MAX}, or after {@link #DRAIN_WAIT_MAX} in all. A writer near its lag bound under batch load
     * is a few hundred thousand transfers (tens of seconds) behind, and a stop that leaves it short makes the final
     * snapshot unusable as a start point: the next start then replays from an older one.
     */
    private static final Duration DRAIN_STALL_MAX = Duration.ofSeconds(10);
    private static final Duration DRAIN_WAIT_MAX = Duration.ofMinutes(5);

    private final EmbeddedDatabase embedded;
    /** Restarts the embedded PostgreSQL when it dies; null with {@code --db-url}. */
    private final EmbeddedDatabaseSupervisor supervisor;
    private final Database database;
    private final LedgerWriter writer;
    /** Set by {@link #startWriter}, before the replay feeds it; read by the business thread after. */
    private EffectRecorder recorder;
    private final LedgerReads reads;

    /**
     * Starts (or connects to) PostgreSQL, migrates the schema and reads the watermark, before the journal opens: the
     * watermark is a witness of how far the journal got ({@link #watermarkWitness()}). The writer starts later, on the
     * open journal ({@link #startWriter}).
     *
     * @param config the server's configuration ({@code dbUrl} null: embedded under the data folder).
     * @param lock   the data folder's lock, held by this process (an embedded postmaster left there is then an orphan).
     */
    public static ReadModel open(final ServerConfig config, final DataFolderLock lock)
    {
        final EmbeddedDatabase embedded = config.dbUrl() == null ? EmbeddedDatabase.start(lock, config.embeddedDatabaseDir()) : null;
        Database database = null;
        try
        {
            database = embedded != null ? Database.connect(embedded) : Database.connect(config.dbUrl());
            final int migrations = database.migrate();
            LOG.info("PostgreSQL read model at {} ({} migrations applied)", embedded != null ? "embedded " +
                embedded.dataDirectory() : "an external cluster", migrations);
            return new ReadModel(embedded, database, WriterConfig.defaults());
        }
        catch (final RuntimeException ex)
        {
            if (database != null)
            {
                database.close();
            }
            if (embedded != null)
            {
                embedded.close();
            }
            throw ex;
        }
    }

    private ReadModel(final EmbeddedDatabase embedded, final Database database, final WriterConfig writerConfig)
    {
        this.embedded = embedded;
        this.database = database;
        writer = LedgerWriter.create(database, writerConfig);
        reads = new LedgerReads(database.dataSource());
        supervisor = embedded == null ? null : EmbeddedDatabaseSupervisor.start(embedded);
    }

    /**
     * @return PostgreSQL's watermark as a witness of how far the journal got: the writer takes only units the journal
     *         holds on stable storage, so a journal that ends below it lost forced records.
     */
    public EndWitness watermarkWitness()
    {
        return new EndWitness(writer.watermark(), "PostgreSQL's watermark (the read model's last journal index)");
    }

    /**
     * Starts the writer on the open journal; it takes only units the journal holds on stable storage
     * ({@link Journal#stableIndex()}). The journal was opened with {@link #watermarkWitness()}, so it reaches the
     * watermark: no command to come can take a journal index whose rows PostgreSQL already has.
     */
    public void startWriter(final Journal journal)
    {
        // Effects of commands at or below the watermark are already in PostgreSQL; replay skips them.
        recorder = writer.createRecorder(writer.watermark());
        writer.requireReplayableFrom(0);
        writer.takeUnitsUpTo(journal::stableIndex);
        writer.start();
    }

    /** Feeds a completed unit's effects to the writer. Business thread (or the replaying thread) only. */
    public void onCommand(final Ledger ledger, final Command command)
    {
        if (ledger.isUnitComplete())
        {
            recorder.onUnit(ledger.effects());
        }
    }

    /** @return true when the writer lags too far behind: new writes get 503 until it catches up. */
    @Override
    public boolean overLagBound()
    {
        return recorder.overLagBound() || writer.overLagBound();
    }

    /**
     * @return why the read model cannot be written now (its embedded PostgreSQL is down and being restarted, or its writer
     *         stopped for good), or null while it can: {@code /ready} answers 503 with it. A writer merely lagging is
     *         {@link #overLagBound()}.
     */
    @Override
    public String downReason()
    {
        final String embeddedDown = supervisor == null ? null : supervisor.downReason();
        if (embeddedDown != null)
        {
            return embeddedDown;
        }
        final Throwable failure = writer.failure();
        return failure == null ? null : "the PostgreSQL writer stopped (restart Tally once the cause is fixed): " + failure;
    }

    /** @return the embedded PostgreSQL's supervisor, or null with {@code --db-url}. */
    public EmbeddedDatabaseSupervisor supervisor()
    {
        return supervisor;
    }

    @Override
    public long watermark()
    {
        return writer.watermark();
    }

    @Override
    public List<EntryRow> entries(final long tenantId, final long accountId, final UUID after, final int limit) throws SQLException
    {
        return reads.entries(tenantId, accountId, after, limit);
    }

    @Override
    public Optional<TransferRow> transfer(final long tenantId, final UUID id) throws SQLException
    {
        return reads.transfer(tenantId, id);
    }

    @Override
    public Optional<TransferRow> transferByReference(final long tenantId, final String reference) throws SQLException
    {
        return reads.transferByReference(tenantId, reference);
    }

    @Override
    public Optional<HoldRow> hold(final long tenantId, final UUID id) throws SQLException
    {
        return reads.hold(tenantId, id);
    }

    @Override
    public Optional<String> accountMetadata(final long tenantId, final long accountId) throws SQLException
    {
        return reads.accountMetadata(tenantId, accountId);
    }

    @Override
    public List<AccountRow> accounts(final long tenantId, final AccountsFilter filter) throws SQLException
    {
        return reads.accounts(tenantId, filter);
    }

    @Override
    public List<AccountTransferRow> accountTransfers(final long tenantId, final long accountId, final AccountTransfersFilter filter)
        throws SQLException
    {
        return reads.accountTransfers(tenantId, accountId, filter);
    }

    @Override
    public Optional<AccountAtRow> accountAt(final long tenantId, final long accountId, final Instant at, final long atIndex) throws SQLException
    {
        return at != null ? reads.accountAtInstant(tenantId, accountId, at) : reads.accountAtIndex(tenantId, accountId, atIndex);
    }

    @Override
    public LedgerReads.StatementCursor statement(final long tenantId, final long accountId, final Instant from, final Instant to)
        throws SQLException
    {
        return reads.statement(tenantId, accountId, from, to);
    }

    @Override
    public int accountMinorDigits(final long tenantId, final long accountId) throws SQLException
    {
        return reads.accountCurrency(tenantId, accountId).map(code -> CurrencyCode.minorDigits(CurrencyCode.pack(code))).orElse(-1);
    }

    public LedgerWriter writer()
    {
        return writer;
    }

    public LedgerReads reads()
    {
        return reads;
    }

    public Database database()
    {
        return database;
    }

    /**
     * Lets the writer catch up with {@code journalIndex} while it makes progress ({@link #DRAIN_STALL_MAX}, at most
     * {@link #DRAIN_WAIT_MAX}), then stops it and the database.
     */
    public void close(final long journalIndex)
    {
        final long startNs = System.nanoTime();
        long before = writer.watermark();
        while (!writer.awaitWatermark(journalIndex, DRAIN_STALL_MAX))
        {
            final long now = writer.watermark();
            final Duration waited = Duration.ofNanos(System.nanoTime() - startNs);
            if (now == before || writer.failure() != null || waited.compareTo(DRAIN_WAIT_MAX) >= 0)
            {
                LOG.warn("PostgreSQL writer stopped at {} before reaching {} (waited {} s): the next start replays the rest",
                    now, journalIndex, waited.toSeconds());
                break;
            }
            LOG.info("stopping: PostgreSQL writer at {} of {}, still draining ({} s so far)", now, journalIndex, waited.toSeconds());
            before = now;
        }
        close();
    }

    @Override
    public void close()
    {
        if (supervisor != null)
        {
            supervisor.close();   // first: stopping the database below is no death to repair
        }
        writer.close();
        database.close();
        if (embedded != null)
        {
            embedded.close();
        }
    }
}
