package dev.tally.perf.jmh;

import java.util.SplittableRandom;

/**
 * A transfer stream computed once, before measuring, so that the measured loop only reads arrays: no
 * random generation, no hashing, no branching on the scenario.
 *
 * <p>The stream is addressed by two counters the benchmark owns: the <em>key sequence</em> (every fresh
 * idempotency key is the next number) picks the (debit, credit) pair and the amount, so a retry of key
 * {@code k} carries exactly the payload the first request with {@code k} carried; the <em>request
 * sequence</em> picks, from a repeating pattern, whether the request is fresh or a retry and how far back
 * it reaches.
 *
 * <p>Memory: {@value #PAIRS_LENGTH} pairs × 16 bytes = 16 MiB, read sequentially (the prefetcher hides
 * it), plus a {@value #DUPLICATE_PATTERN_LENGTH}-entry pattern of 256 KiB.
 */
final class TransferWorkload
{
    /** Distinct (debit, credit) pairs; the stream cycles through them. A power of two. */
    static final int PAIRS_LENGTH = 1 << 20;
    /** Length of the fresh/retry pattern; the stream cycles through it. A power of two. */
    static final int DUPLICATE_PATTERN_LENGTH = 1 << 16;
    /**
     * How far back a retry reaches, at most, counted in fresh keys, when the key retention window is
     * large: a client retries within seconds, so retries hit recent keys.
     */
    static final int DUPLICATE_DISTANCE_MAX = 1 << 16;
    /** Amounts run from 1 to this many minor units. A power of two. */
    static final int AMOUNT_MAX_MINOR = 1 << 10;

    private static final int PAIR_MASK = PAIRS_LENGTH - 1;
    private static final int PATTERN_MASK = DUPLICATE_PATTERN_LENGTH - 1;
    private static final int AMOUNT_MASK = AMOUNT_MAX_MINOR - 1;

    private final long[] debitAccountIds = new long[PAIRS_LENGTH];
    private final long[] creditAccountIds = new long[PAIRS_LENGTH];
    /** 0: a fresh key; d > 0: a retry of the key issued d fresh keys ago. */
    private final int[] duplicateDistances = new int[DUPLICATE_PATTERN_LENGTH];

    /**
     * @param scenario       what to generate.
     * @param accountCount   ordinary accounts, with ids {@code firstAccountId .. firstAccountId + accountCount - 1}.
     * @param firstAccountId id of the first ordinary account.
     * @param hotAccountId   id of the hot merchant account (used by {@link TransferScenario#HOT_CREDIT}).
     * @param duplicateDistanceMax how far back a retry reaches at most, in fresh keys, from 1 to
     *                       {@link #DUPLICATE_DISTANCE_MAX}: must stay inside the key retention window.
     * @param seed           seed of the generator: the same seed gives the same stream.
     */
    TransferWorkload(
        final TransferScenario scenario, final int accountCount, final long firstAccountId, final long hotAccountId,
        final int duplicateDistanceMax, final long seed)
    {
        if (accountCount < 2)
        {
            throw new IllegalArgumentException("a transfer needs two accounts, accountCount was " + accountCount);
        }
        if (duplicateDistanceMax < 1 || duplicateDistanceMax > DUPLICATE_DISTANCE_MAX)
        {
            throw new IllegalArgumentException("duplicateDistanceMax out of range: " + duplicateDistanceMax);
        }
        final SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < PAIRS_LENGTH; i++)
        {
            final long debit = firstAccountId + random.nextInt(accountCount);
            long credit = hotAccountId;
            while (!scenario.hotCredit() && (credit == hotAccountId || credit == debit))
            {
                credit = firstAccountId + random.nextInt(accountCount);
            }
            debitAccountIds[i] = debit;
            creditAccountIds[i] = credit;
        }
        final int duplicates = DUPLICATE_PATTERN_LENGTH * scenario.duplicatePercent() / 100;
        for (int i = 0; i < duplicates; i++)
        {
            duplicateDistances[i] = 1 + random.nextInt(duplicateDistanceMax);
        }
        shuffle(duplicateDistances, random);
    }

    /** @return 0 when request {@code requestSeq} carries a fresh key, else how many fresh keys back it reaches. */
    int duplicateDistance(final long requestSeq)
    {
        return duplicateDistances[(int)requestSeq & PATTERN_MASK];
    }

    /** @return the account debited by the request carrying key {@code keySeq}. */
    long debitAccountId(final long keySeq)
    {
        return debitAccountIds[(int)keySeq & PAIR_MASK];
    }

    /** @return the account credited by the request carrying key {@code keySeq}. */
    long creditAccountId(final long keySeq)
    {
        return creditAccountIds[(int)keySeq & PAIR_MASK];
    }

    /** @return the amount, in minor units, of the request carrying key {@code keySeq}. */
    static long amountMinor(final long keySeq)
    {
        return 1 + (keySeq & AMOUNT_MASK);
    }

    /** @return the number of retries in one pass of the pattern (its exact share of duplicates). */
    int duplicatesPerPattern()
    {
        int count = 0;
        for (final int distance : duplicateDistances)
        {
            count += distance == 0 ? 0 : 1;
        }
        return count;
    }

    private static void shuffle(final int[] values, final SplittableRandom random)
    {
        for (int i = values.length - 1; i > 0; i--)
        {
            final int j = random.nextInt(i + 1);
            final int swap = values[i];
            values[i] = values[j];
            values[j] = swap;
        }
    }
}
