package dev.tally.perf.load;

import java.util.Arrays;

/**
 * What the server did with every request of a run, warmup and drain included: the input of the
 * correctness check. One instance per event-loop thread (no sharing); {@link #mergeFrom} adds them up
 * after the run.
 *
 * <p>The shadow ledger holds, per account, the money the run moved by transfers the server acknowledged
 * as applied (201 without {@code Idempotent-Replayed}). Setup balance plus shadow delta must equal what
 * the server reports, to the minor unit.
 */
final class Outcomes
{
    /** Unknown outcomes remembered for resolution; beyond this the check cannot be exact and fails. */
    static final int UNKNOWN_MAX = 1_000_000;

    private final long[] deltaMinor;
    /** Transfers acknowledged as applied (201, not replayed): each key applied once. */
    long appliedTransfers;
    /** Retries answered as a replay, as they must be. */
    long expectedReplays;
    /** Fresh keys answered as a replay: a key collided with an earlier request. */
    long unexpectedReplays;
    /** Retries answered as freshly applied: a key applied twice, the violation the check exists for. */
    long retriesAppliedAgain;
    /** Operations answered with a status other than 201 (nothing applied). */
    long notApplied;
    /** Requests whose fate is unknown (connection lost, no reply, unreadable reply): resolved by the check. */
    private long[] unknownKeySeqs = new long[1024];
    private int unknownCount;
    private boolean unknownOverflow;

    Outcomes(final int accounts)
    {
        deltaMinor = new long[accounts];
    }

    /** Records one transfer the server applied. */
    void applied(final int debitIndex, final int creditIndex)
    {
        deltaMinor[debitIndex] -= AccountLayout.AMOUNT_MINOR;
        deltaMinor[creditIndex] += AccountLayout.AMOUNT_MINOR;
        appliedTransfers++;
    }

    /** Records a request (a fresh one; retries of acknowledged keys need no resolution) whose outcome is unknown. */
    void unknown(final long keySeq)
    {
        if (unknownCount == UNKNOWN_MAX)
        {
            unknownOverflow = true;
            return;
        }
        if (unknownCount == unknownKeySeqs.length)
        {
            unknownKeySeqs = Arrays.copyOf(unknownKeySeqs, unknownCount * 2);
        }
        unknownKeySeqs[unknownCount++] = keySeq;
    }

    /** @return the money the run moved on the account at {@code index}, in minor units. */
    long deltaMinor(final int index)
    {
        return deltaMinor[index];
    }

    /** @return requests whose outcome is unknown, in the order they were found. */
    long[] unknownKeySeqs()
    {
        return Arrays.copyOf(unknownKeySeqs, unknownCount);
    }

    /** Forgets the unknown outcomes (after they were resolved). */
    void clearUnknown()
    {
        unknownCount = 0;
    }

    boolean unknownOverflow()
    {
        return unknownOverflow;
    }

    /** Adds another loop's outcomes to these. */
    void mergeFrom(final Outcomes other)
    {
        for (int i = 0; i < deltaMinor.length; i++)
        {
            deltaMinor[i] += other.deltaMinor[i];
        }
        appliedTransfers += other.appliedTransfers;
        expectedReplays += other.expectedReplays;
        unexpectedReplays += other.unexpectedReplays;
        retriesAppliedAgain += other.retriesAppliedAgain;
        notApplied += other.notApplied;
        for (final long keySeq : other.unknownKeySeqs())
        {
            unknown(keySeq);
        }
        unknownOverflow |= other.unknownOverflow;
    }
}
