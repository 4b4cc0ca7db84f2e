package dev.tally.server;

import java.time.Duration;
import java.util.function.LongSupplier;

import dev.tally.coldindex.ColdIndex;
import dev.tally.coldindex.ColdIndexWriter;
import dev.tally.coldindex.ColdReader;
import dev.tally.coldindex.ColdRecorder;
import dev.tally.journal.EndWitness;
import dev.tally.ledger.Ledger;
import dev.tally.ledger.command.Command;
import dev.tally.pipeline.ColdCheck;
import dev.tally.pipeline.UnitListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cold index in a server (docs/ARCHITECTURE.md, "Bounded memory"): the RocksDB folder {@code data/cold}, its writer
 * thread fed by the business thread after every unit, and the journal stage's lookups. Its watermark is a witness of how
 * far the journal got, and bounds the snapshot a start may load: the units after it are filed from the replay.
 */
final class ColdIndexService implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(ColdIndexService.class);
    /** How long a graceful stop waits for the writer to file what the journal holds. */
    private static final Duration STOP_WAIT = Duration.ofSeconds(10);

    private final ColdIndex index;
    private final ColdIndexWriter writer;
    private final ColdRecorder recorder;
    private final ColdReader reader;
    /** The responder thread's reads of transfers memory let go (a reader per thread: each keeps its buffers). */
    private final ColdReader responderReader;
    private final ColdCheck check;

    private ColdIndexService(final ColdIndex index, final ServerConfig config)
    {
        this.index = index;
        this.writer = new ColdIndexWriter(index, config.cold().ringBytes());
        this.recorder = writer.recorder();
        this.reader = index.reader();
        this.responderReader = index.reader();
        final long lagMax = config.cold().lagMaxFor(config.ledger());
        if (lagMax < config.cold().lagMax())
        {
            LOG.info("cold index lag bound {} commands (the ledger's smallest table, less a batch of {})", lagMax,
                dev.tally.ledger.LedgerLimits.BATCH_OPERATIONS_MAX);
        }
        this.check = new ColdCheck(index::watermarkIndex, reader, lagMax);
    }

    /** Opens (creating when absent) the cold index of {@code config}'s data folder; its writer is not started yet. */
    static ColdIndexService open(final ServerConfig config)
    {
        final ColdIndex index = ColdIndex.open(config.cold().indexConfig(config.coldIndexDir(), config.ledger()));
        try
        {
            final ColdIndexService service = new ColdIndexService(index, config);
            LOG.info("cold index {}: watermark {}", config.coldIndexDir(), index.watermarkIndex());
            return service;
        }
        catch (final RuntimeException | Error ex)
        {
            index.close();
            throw ex;
        }
    }

    /** @return the watermark as a witness: the journal held every command up to it on stable storage. */
    EndWitness watermarkWitness()
    {
        return new EndWitness(index.watermarkIndex(), "the cold index's watermark (its last journal index)");
    }

    /** @return the last journal index whose items are all in the cold index. */
    long watermark()
    {
        return index.watermarkIndex();
    }

    /** Starts the writer, taking units only once {@code stableIndex} (the journal's) has passed them. */
    void startWriter(final LongSupplier stableIndex)
    {
        writer.takeUnitsUpTo(stableIndex);
        writer.start();
    }

    /** Files each unit the business thread completes (the replay's too): on that thread, allocation-free. */
    UnitListener unitListener()
    {
        return this::onUnit;
    }

    private void onUnit(final Ledger ledger, final Command lastCommand)
    {
        // no command: the replay's end rolled back an atomic batch the journal ends inside, an empty unit up to its last index
        recorder.beginUnit(lastCommand == null ? ledger.lastJournalIndex() : lastCommand.journalIndex,
            lastCommand == null ? ledger.nowNs() : lastCommand.timestampNs);
        ledger.fileCold(recorder);
        recorder.endUnit();
    }

    /** @return the journal stage's side: watermark, lookups and lag bound. */
    ColdCheck check()
    {
        return check;
    }

    /** @return reads of transfers for the responder thread alone. */
    ColdReader responderReads()
    {
        return responderReader;
    }

    ColdIndexWriter writer()
    {
        return writer;
    }

    ColdRecorder recorder()
    {
        return recorder;
    }

    /**
     * Stops after the pipeline did: waits (bounded) for the writer to file the units up to {@code lastIndex}, then
     * closes. What it did not file is filed from the journal at the next start.
     */
    void close(final long lastIndex)
    {
        if (!writer.awaitWatermark(lastIndex, STOP_WAIT))
        {
            LOG.warn("cold index at {} of {} after {} s: the next start files the rest from the journal", index.watermarkIndex(),
                lastIndex, STOP_WAIT.toSeconds());
        }
        close();
    }

    @Override
    public void close()
    {
        writer.close();
        reader.close();
        responderReader.close();
        index.close();
    }
}
