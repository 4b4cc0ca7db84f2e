package dev.tally.perf.load;

import io.netty.buffer.ByteBuf;

/**
 * The workload as one event-loop thread sees it: which request goes next, its bytes, and what its reply
 * means. Requests are pure functions of their key sequence number ({@link AccountLayout}); the only
 * state is the counter of fresh keys and, for {@code retries}, a ring of recently acknowledged keys to
 * repeat. Not thread-safe: one instance per event-loop thread.
 */
final class RequestSource
{
    /** The request repeats an acknowledged request (same key, same payload): it must be a replay. */
    static final int FLAG_RETRY = 1;

    /** Recently acknowledged keys a retry picks from (a power of two). */
    private static final int RECENT_ACKED_SIZE = 4_096;
    /** {@code coldRetries}: how many acknowledgements old a retried key is at least. */
    static final int COLD_DISTANCE = 1 << 17;
    /** {@code coldRetries}: acknowledged keys kept, twice the distance (a power of two): 2 MiB a client thread. */
    private static final int COLD_ACKED_SIZE = 2 * COLD_DISTANCE;
    /** {@code coldRetries}: one request in this many is a retry. */
    private static final int COLD_RETRY_EVERY = 100;
    private static final byte[] DEBIT_ACCOUNT_ID = "\"debitAccountId\":".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] CREDIT_ACCOUNT_ID = "\"creditAccountId\":".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final Scenario scenario;
    private final AccountLayout layout;
    private final RequestTemplate template;
    private final BatchResults batchResults;
    private final Outcomes outcomes;
    private final int batchSize;
    private final int loopIndex;
    private final int loopCount;
    private final boolean verifyOrder;
    private final long[] recentAcked;
    /** Replies that answered another request than the one they were matched to (pipelining only). */
    long outOfOrder;
    private long ackedCount;
    private long freshCount;
    private long requestCount;
    private int lastFlags;

    RequestSource(
        final LoadSpec spec, final AccountLayout layout, final RequestTemplate template, final Outcomes outcomes,
        final int loopIndex, final int loopCount)
    {
        this.scenario = spec.scenario();
        this.layout = layout;
        this.template = template;
        this.outcomes = outcomes;
        this.batchSize = spec.operationsPerRequest();
        this.batchResults = new BatchResults(batchSize);
        this.loopIndex = loopIndex;
        this.loopCount = loopCount;
        this.verifyOrder = spec.depth() > 1;
        this.recentAcked = new long[scenario == Scenario.COLD_RETRIES ? COLD_ACKED_SIZE : RECENT_ACKED_SIZE];
    }

    /**
     * Writes the next request.
     *
     * @return its key sequence number; {@link #lastFlags()} tells whether it is a retry.
     */
    long writeNext(final ByteBuf out)
    {
        requestCount++;
        if (scenario == Scenario.RETRIES && ackedCount > 0 && (layout.mix(requestCount, 0, 5) & 1) == 1)
        {
            final long window = Math.min(ackedCount, RECENT_ACKED_SIZE);
            final long keySeq = recentAcked[(int)Long.remainderUnsigned(layout.mix(requestCount, 0, 6), window)];
            lastFlags = FLAG_RETRY;
            write(out, keySeq);
            return keySeq;
        }
        if (scenario == Scenario.COLD_RETRIES && ackedCount > COLD_DISTANCE &&
            Long.remainderUnsigned(layout.mix(requestCount, 0, 5), COLD_RETRY_EVERY) == 0)
        {
            // an acknowledgement at least COLD_DISTANCE old, and still in the ring
            final long oldest = Math.max(0, ackedCount - COLD_ACKED_SIZE);
            final long span = ackedCount - COLD_DISTANCE - oldest;
            final long ack = oldest + Long.remainderUnsigned(layout.mix(requestCount, 0, 6), span);
            final long keySeq = recentAcked[(int)(ack & (COLD_ACKED_SIZE - 1))];
            lastFlags = FLAG_RETRY;
            write(out, keySeq);
            return keySeq;
        }
        final long keySeq = loopIndex + loopCount * freshCount++;
        lastFlags = 0;
        write(out, keySeq);
        return keySeq;
    }

    /** @return the flags of the request {@link #writeNext} wrote last. */
    int lastFlags()
    {
        return lastFlags;
    }

    /** Writes the request of {@code keySeq} again, byte for byte. */
    void write(final ByteBuf out, final long keySeq)
    {
        if (scenario == Scenario.BATCH)
        {
            template.startBatch();
            for (int op = 0; op < batchSize; op++)
            {
                template.addBatchTransfer(keySeq, op, layout.id(layout.debitIndex(keySeq, op)), layout.id(layout.creditIndex(keySeq, op)));
            }
            template.finishBatch(out);
        }
        else
        {
            template.writeTransfer(out, keySeq, layout.id(layout.debitIndex(keySeq, 0)), layout.id(layout.creditIndex(keySeq, 0)));
        }
    }

    /** @return an upper bound of one request's length in bytes. */
    int requestLengthMax()
    {
        return scenario == Scenario.BATCH ? template.batchLengthMax(batchSize) : template.singleLengthMax();
    }

    /**
     * Accounts for one reply in {@link Outcomes}.
     *
     * @return true when the reply is what the scenario expects (201, a replay exactly for retries; for a
     *         batch: 200 with every operation 201).
     */
    boolean onReply(
        final long keySeq, final int flags, final int status, final boolean replayed, final ByteBuf buffer, final int bodyIndex,
        final int bodyLength)
    {
        if (verifyOrder && !answers(keySeq, buffer, bodyIndex, bodyLength))
        {
            // Pipelined: a reply that does not name this request's debit account (a reply out of order,
            // or an error from the server's I/O thread that may have overtaken an earlier reply) proves
            // nothing about this request. Its fate is unknown; the check resolves it by sending it again
            // with the same key.
            if (status == 201 || status == 200)
            {
                outOfOrder++;
            }
            if ((flags & FLAG_RETRY) == 0)
            {
                // A retry repeats an acknowledged request: whatever happened to it, nothing more was applied.
                outcomes.unknown(keySeq);
            }
            return false;
        }
        if (scenario == Scenario.BATCH)
        {
            return onBatchReply(keySeq, status, buffer, bodyIndex, bodyLength);
        }
        if (status != 201)
        {
            outcomes.notApplied++;
            return false;
        }
        final boolean retry = (flags & FLAG_RETRY) != 0;
        if (replayed)
        {
            if (retry)
            {
                outcomes.expectedReplays++;
                return true;
            }
            outcomes.unexpectedReplays++;
            return false;
        }
        outcomes.applied(layout.debitIndex(keySeq, 0), layout.creditIndex(keySeq, 0));
        if (retry)
        {
            outcomes.retriesAppliedAgain++;
            return false;
        }
        recentAcked[(int)(ackedCount++ & (recentAcked.length - 1))] = keySeq;
        return true;
    }

    private boolean onBatchReply(final long keySeq, final int status, final ByteBuf buffer, final int bodyIndex, final int bodyLength)
    {
        if (status != 200)
        {
            // Validation, ring full, not ready: the batch was not journaled, nothing applied.
            outcomes.notApplied += batchSize;
            return false;
        }
        final int count = batchResults.scan(buffer, bodyIndex, bodyLength);
        if (count != batchSize)
        {
            outcomes.unknown(keySeq);
            return false;
        }
        boolean ok = true;
        for (int op = 0; op < count; op++)
        {
            if (batchResults.status(op) != 201)
            {
                outcomes.notApplied++;
                ok = false;
            }
            else if (batchResults.replayed(op))
            {
                outcomes.unexpectedReplays++;
                ok = false;
            }
            else
            {
                outcomes.applied(layout.debitIndex(keySeq, op), layout.creditIndex(keySeq, op));
            }
        }
        return ok;
    }

    /**
     * @return true when the reply's first {@code "debitAccountId"} and {@code "creditAccountId"} are the
     *         accounts of request {@code keySeq} (of its first operation, for a batch).
     */
    private boolean answers(final long keySeq, final ByteBuf buffer, final int bodyIndex, final int bodyLength)
    {
        final int end = bodyIndex + bodyLength;
        return numberAfter(buffer, bodyIndex, end, DEBIT_ACCOUNT_ID) == layout.id(layout.debitIndex(keySeq, 0)) &&
            numberAfter(buffer, bodyIndex, end, CREDIT_ACCOUNT_ID) == layout.id(layout.creditIndex(keySeq, 0));
    }

    /**
     * @return the unsigned decimal following the first {@code name} in the range, as a JSON number or a string of digits
     *         (Tally writes account ids as strings, the peer as numbers), or -1.
     */
    private static long numberAfter(final ByteBuf buffer, final int from, final int end, final byte[] name)
    {
        final int at = indexOf(buffer, from, end, name);
        if (at < 0)
        {
            return -1;
        }
        final int first = at + name.length;
        long value = 0;
        for (int i = first < end && buffer.getByte(first) == '"' ? first + 1 : first; i < end; i++)
        {
            final int digit = buffer.getByte(i) - '0';
            if (digit < 0 || digit > 9)
            {
                break;
            }
            value = value * 10 + digit;
        }
        return value;
    }

    private static int indexOf(final ByteBuf buffer, final int from, final int end, final byte[] needle)
    {
        for (int i = from; i <= end - needle.length; i++)
        {
            int matched = 0;
            while (matched < needle.length && buffer.getByte(i + matched) == needle[matched])
            {
                matched++;
            }
            if (matched == needle.length)
            {
                return i;
            }
        }
        return -1;
    }

    /**
     * Accounts for the reply to a request re-sent to resolve an unknown outcome: a 201, fresh or replayed,
     * means the transfer is applied exactly once now.
     *
     * @return false when the outcome is still unknown (no usable reply, or 503: try again).
     */
    boolean onResolution(final long keySeq, final int status, final byte[] body)
    {
        if (scenario == Scenario.BATCH)
        {
            if (status != 200)
            {
                return status != 503 && status > 0;
            }
            final int count = batchResults.scan(body, body.length);
            if (count != batchSize)
            {
                return false;
            }
            for (int op = 0; op < count; op++)
            {
                if (batchResults.status(op) == 201)
                {
                    outcomes.applied(layout.debitIndex(keySeq, op), layout.creditIndex(keySeq, op));
                }
            }
            return true;
        }
        if (status == 201)
        {
            outcomes.applied(layout.debitIndex(keySeq, 0), layout.creditIndex(keySeq, 0));
            return true;
        }
        return status != 503 && status > 0;
    }
}
