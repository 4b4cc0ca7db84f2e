package dev.tally.pipeline;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the pipeline may take writes. A journal failure or a broken ledger invariant halts it: from
 * then on writes are refused with 503 and {@code /ready} says no, because applying anything more could
 * acknowledge work that is not journaled or build on a corrupt state.
 */
public final class PipelineHealth
{
    private static final Logger LOG = LoggerFactory.getLogger(PipelineHealth.class);

    private volatile boolean replayed;
    private volatile String haltReason;
    /** The {@code journal} member of {@code /health}: what the start-up cut from the journal's tail, if anything. */
    private volatile String journalHealth = "{\"tailCut\":null}";

    /** Marks the startup replay as done: the state is current. */
    public void markReplayed()
    {
        replayed = true;
    }

    /** Stops taking writes for good (until restart). */
    public void halt(final String reason, final Throwable cause)
    {
        if (haltReason == null)
        {
            haltReason = reason;
            LOG.error("pipeline halted: {}", reason, cause);
        }
    }

    public boolean isHalted()
    {
        return haltReason != null;
    }

    /** @return the reason the pipeline halted, or null. */
    public String haltReason()
    {
        return haltReason;
    }

    /**
     * Records that the start-up cut the journal's torn tail, for {@code /health}: after {@code afterIndex}, {@code records}
     * unreadable records of {@code bytes} bytes, {@code intactRecords} of them with a good checksum (cut on request).
     */
    public void journalTailCut(final long afterIndex, final long records, final long bytes, final long intactRecords)
    {
        journalHealth = "{\"tailCut\":{\"afterIndex\":" + afterIndex + ",\"records\":" + records + ",\"bytes\":" + bytes +
            ",\"intactRecords\":" + intactRecords + "}}";
    }

    /** @return the {@code journal} member of {@code /health}: what the start cut from the journal's tail, if anything. */
    public String journalHealthJson()
    {
        return journalHealth;
    }

    /** @return true when the server may take traffic: replay done and not halted. */
    public boolean isReady()
    {
        return replayed && haltReason == null;
    }
}
