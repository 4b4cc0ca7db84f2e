package dev.tally.perf.jmh;

import dev.tally.ledger.result.Result;
import dev.tally.ledger.result.ResultCode;

/**
 * Counts the outcomes a benchmark produced, so that its teardown can prove it measured what it claims:
 * a transfer benchmark whose transfers were rejected measured the rejection path, not the transfer.
 *
 * <p>Counting is one predictable branch and one array increment per command: allocation-free, and
 * cheap next to {@code Ledger.apply}. It also keeps the results alive, so the JIT cannot drop the work.
 */
final class ResultTally
{
    private final long[] rejectedByCode = new long[ResultCode.values().length];
    private long postedCount;
    private long replayedCount;
    private long expectedPostedCount;
    private long expectedReplayedCount;

    /** Records the outcome of a command that was expected to post a fresh transfer. */
    void expectPosted(final Result r)
    {
        expectedPostedCount++;
        record(r);
    }

    /** Records the outcome of a command that reused an earlier key and was expected to replay. */
    void expectReplayed(final Result r)
    {
        expectedReplayedCount++;
        record(r);
    }

    private void record(final Result r)
    {
        if (r.code != ResultCode.OK)
        {
            rejectedByCode[r.code.ordinal()]++;
        }
        else if (r.replayed)
        {
            replayedCount++;
        }
        else
        {
            postedCount++;
        }
    }

    /** Records a tick's outcome: a tick always succeeds. */
    void expectTickOk(final Result r)
    {
        if (r.code != ResultCode.OK)
        {
            rejectedByCode[r.code.ordinal()]++;
        }
    }

    long postedCount()
    {
        return postedCount;
    }

    long replayedCount()
    {
        return replayedCount;
    }

    /**
     * @param what names the run in the message.
     * @throws IllegalStateException when any command was rejected or the posted/replayed split differs
     * from what the workload issued.
     */
    void verify(final String what)
    {
        long rejected = 0;
        for (final long count : rejectedByCode)
        {
            rejected += count;
        }
        if (rejected != 0 || postedCount != expectedPostedCount || replayedCount != expectedReplayedCount)
        {
            throw new IllegalStateException(what + ": unexpected outcomes, " + this);
        }
    }

    @Override
    public String toString()
    {
        final StringBuilder text = new StringBuilder()
            .append("posted ").append(postedCount).append('/').append(expectedPostedCount)
            .append(", replayed ").append(replayedCount).append('/').append(expectedReplayedCount);
        for (final ResultCode code : ResultCode.values())
        {
            if (rejectedByCode[code.ordinal()] != 0)
            {
                text.append(", ").append(code).append(' ').append(rejectedByCode[code.ordinal()]);
            }
        }
        return text.toString();
    }
}
