package dev.tally.ledger.idempotency;

import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.StateDigest;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.image.LongSection;
import dev.tally.ledger.image.RingCopy;
import dev.tally.ledger.result.Result;
import dev.tally.ledger.result.ResultCode;
import dev.tally.ledger.table.DigestRing;
import dev.tally.ledger.table.Digest128Index;

/**
 * (tenant, idempotency key) → request fingerprint + stored result, for keys inside their retention
 * window of journaled time.
 *
 * <p>Keys arrive in time order, so they live in a {@link DigestRing} in insertion order and expire from its
 * head; its {@link Digest128Index} finds a key's ring position. The key digest already covers the tenant (the
 * gateway hashes tenant and key together), so scoping costs nothing here.
 *
 * <p>One ring entry is 12 {@code long}s (96 bytes): key digest (2), fingerprint (2), the result's origin
 * index and time (2), five payload fields (5), and one word packing code, type and currency. With the
 * index (16 bytes: it keeps no copy of the digest, see {@link Digest128Index}) a stored key costs 112 bytes.
 */
public final class IdempotencyTable
{
    private static final int STRIDE = LedgerLimits.IDEMPOTENCY_KEY_LONGS;
    // fields 0 and 1: the key digest, where DigestRing keeps it
    private static final int FP_HI = 2;
    private static final int FP_LO = 3;
    private static final int ORIGIN_INDEX = 4;
    private static final int ORIGIN_TIME = 5;
    private static final int ACCOUNT_A = 6;
    private static final int ACCOUNT_B = 7;
    private static final int AMOUNT = 8;
    private static final int EXTRA = 9;
    private static final int PACKED = 10;
    private static final int EXTRA_TIME = 11;

    private final DigestRing keys;
    /** {@link #keys}' records, read and written in place. */
    private final long[] ring;

    /** @param capacity the most keys kept at once, at most {@link LedgerLimits#IDEMPOTENCY_KEYS_CAPACITY_MAX}. */
    public IdempotencyTable(final int capacity)
    {
        keys = new DigestRing(capacity, STRIDE, ORIGIN_TIME);
        ring = keys.ring();
    }

    /** @return the key's position for the accessors below, or -1 when the key is not stored. */
    public int find(final long keyHi, final long keyLo)
    {
        return keys.find(keyHi, keyLo);
    }

    /**
     * Starts the cache misses of {@link #find} without waiting for them: see {@link Digest128Index#hint}.
     *
     * @return a value read on the way, for the caller to keep so that the loads are not dropped.
     */
    public long preload(final long keyHi, final long keyLo)
    {
        final int position = keys.hint(keyHi, keyLo);
        return position < 0 ? 0 : ring[position * STRIDE + FP_LO];
    }

    /** @return true when the stored fingerprint equals the given one. */
    public boolean fingerprintMatches(final int position, final long fingerprintHi, final long fingerprintLo)
    {
        final int offset = position * STRIDE;
        return ring[offset + FP_HI] == fingerprintHi && ring[offset + FP_LO] == fingerprintLo;
    }

    /** Reads the stored result into {@code out}, marked as replayed. */
    public void read(final int position, final Result out)
    {
        final int offset = position * STRIDE;
        final long packed = ring[offset + PACKED];
        out.code = ResultCode.fromCode((int)(packed >>> 56));
        out.type = CommandType.fromCode((int)(packed >>> 48) & 0xFF);
        out.currency = (int)packed;
        out.originIndex = ring[offset + ORIGIN_INDEX];
        out.originTimestampNs = ring[offset + ORIGIN_TIME];
        out.accountA = ring[offset + ACCOUNT_A];
        out.accountB = ring[offset + ACCOUNT_B];
        out.amountMinor = ring[offset + AMOUNT];
        out.extra = ring[offset + EXTRA];
        out.extraTimestampNs = ring[offset + EXTRA_TIME];
        out.replayed = true;
    }

    /** @return true when one more key fits. */
    public boolean hasRoom()
    {
        return keys.hasRoom();
    }

    /**
     * Stores a new key with its result; the caller checked {@link #find} (absent) and {@link #hasRoom}.
     *
     * @return the key's position.
     */
    public int add(final long keyHi, final long keyLo, final long fingerprintHi, final long fingerprintLo, final Result result)
    {
        final int position = keys.append(keyHi, keyLo);
        final int offset = position * STRIDE;
        ring[offset + FP_HI] = fingerprintHi;
        ring[offset + FP_LO] = fingerprintLo;
        write(position, result);
        return position;
    }

    /** Overwrites the stored result of a key (an atomic batch that failed rewrites its keys). */
    public void write(final int position, final Result result)
    {
        final int offset = position * STRIDE;
        ring[offset + ORIGIN_INDEX] = result.originIndex;
        ring[offset + ORIGIN_TIME] = result.originTimestampNs;
        ring[offset + ACCOUNT_A] = result.accountA;
        ring[offset + ACCOUNT_B] = result.accountB;
        ring[offset + AMOUNT] = result.amountMinor;
        ring[offset + EXTRA] = result.extra;
        ring[offset + EXTRA_TIME] = result.extraTimestampNs;
        ring[offset + PACKED] = ((long)result.code.code() << 56) | ((long)(result.type == null ? 0 : result.type.code()) << 48) |
            (result.currency & 0xFFFF_FFFFL);
    }

    /** Removes the newest key (atomic batch rollback only). */
    public void removeNewest()
    {
        keys.removeNewest();
    }

    /**
     * Forgets keys stored at or before {@code cutoffNs}, oldest first, at most {@code max} of them.
     *
     * @return keys forgotten.
     */
    public int expire(final long cutoffNs, final int max)
    {
        return keys.expire(cutoffNs, max);
    }

    /** @return keys stored now. */
    public int size()
    {
        return keys.size();
    }

    /** @return the most keys stored at once. */
    public int capacity()
    {
        return keys.capacity();
    }

    /** Folds every stored key, oldest first, into the digest. */
    public void digest(final StateDigest digest)
    {
        keys.digest(digest);
    }

    /** Folds an image's keys exactly as {@link #digest} folds the table they were copied from. */
    public static void digestImage(final LongSection image, final StateDigest digest)
    {
        RingCopy.digest(image, STRIDE, digest);
    }

    /** @return the longs {@link #copyTo} fills. */
    public int imageLength()
    {
        return keys.imageLength();
    }

    /** Copies every stored key and result, oldest first, into {@code image}: at most two array copies. */
    public void copyTo(final LongSection image)
    {
        keys.copyTo(image);
    }

    /**
     * Fills this fresh (empty) table from an image, oldest key at ring position 0, and rebuilds the index.
     *
     * @throws IllegalArgumentException when the image does not fit this table.
     */
    public void restoreFrom(final LongSection image)
    {
        keys.restoreFrom("idempotency", image);
    }
}
