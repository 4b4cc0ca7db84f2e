package dev.tally.ledger.idempotency;

import dev.tally.ledger.StateDigest;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.image.LongSection;
import dev.tally.ledger.image.RingCopy;
import dev.tally.ledger.result.Result;
import dev.tally.ledger.result.ResultCode;

/**
 * (tenant, idempotency key) → request fingerprint + stored result, for keys inside their retention
 * window of journaled time.
 *
 * <p>Keys arrive in time order, so they live in a ring in insertion order and expire from its head;
 * a {@link Digest128Index} finds a key's ring position. The key digest already covers the tenant (the
 * gateway hashes tenant and key together), so scoping costs nothing here.
 *
 * <p>One ring entry is 12 {@code long}s (96 bytes): key digest (2), fingerprint (2), the result's origin
 * index and time (2), five payload fields (5), and one word packing code, type and currency. With the
 * index (16 bytes: it keeps no copy of the digest, see {@link Digest128Index}) a stored key costs 112 bytes.
 */
public final class IdempotencyTable
{
    private static final int STRIDE = 12;
    private static final int KEY_HI = 0;
    private static final int KEY_LO = 1;
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

    private final long[] ring;
    private final int capacity;
    private final Digest128Index index;
    /** Items ever added and ever removed from the head: their difference is the size. */
    private long head;
    private long tail;
    /** Ring positions of {@link #head} and {@link #tail}, kept alongside so that no step divides. */
    private int headPosition;
    private int tailPosition;

    /** @param capacity the most keys kept at once. */
    public IdempotencyTable(final int capacity)
    {
        this.capacity = capacity;
        ring = new long[capacity * STRIDE];
        index = new Digest128Index(capacity, ring, 0, STRIDE, KEY_HI, KEY_LO);
    }

    /** @return the key's position for the accessors below, or -1 when the key is not stored. */
    public int find(final long keyHi, final long keyLo)
    {
        return index.get(keyHi, keyLo);
    }

    /**
     * Starts the cache misses of {@link #find} without waiting for them: see {@link Digest128Index#hint}.
     *
     * @return a value read on the way, for the caller to keep so that the loads are not dropped.
     */
    public long preload(final long keyHi, final long keyLo)
    {
        final int position = index.hint(keyHi, keyLo);
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
        return tail - head < capacity;
    }

    /**
     * Stores a new key with its result; the caller checked {@link #find} (absent) and {@link #hasRoom}.
     *
     * @return the key's position.
     */
    public int add(final long keyHi, final long keyLo, final long fingerprintHi, final long fingerprintLo, final Result result)
    {
        final int position = tailPosition;
        final int offset = position * STRIDE;
        ring[offset + KEY_HI] = keyHi;
        ring[offset + KEY_LO] = keyLo;
        ring[offset + FP_HI] = fingerprintHi;
        ring[offset + FP_LO] = fingerprintLo;
        write(position, result);
        if (!index.put(keyHi, keyLo, position))
        {
            throw new IllegalStateException("idempotency index full while ring had room");
        }
        tail++;
        tailPosition = next(position);
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
        tail--;
        tailPosition = previous(tailPosition);
        final int position = tailPosition;
        final int offset = position * STRIDE;
        index.remove(ring[offset + KEY_HI], ring[offset + KEY_LO], position);
    }

    /**
     * Forgets keys stored at or before {@code cutoffNs}, oldest first, at most {@code max} of them.
     *
     * @return keys forgotten.
     */
    public int expire(final long cutoffNs, final int max)
    {
        int expired = 0;
        while (expired < max && head < tail)
        {
            final int position = headPosition;
            final int offset = position * STRIDE;
            if (ring[offset + ORIGIN_TIME] > cutoffNs)
            {
                break;
            }
            index.remove(ring[offset + KEY_HI], ring[offset + KEY_LO], position);
            head++;
            headPosition = next(position);
            expired++;
        }
        return expired;
    }

    /** @return the ring position after {@code position}. */
    private int next(final int position)
    {
        return position + 1 == capacity ? 0 : position + 1;
    }

    /** @return the ring position before {@code position}. */
    private int previous(final int position)
    {
        return position == 0 ? capacity - 1 : position - 1;
    }

    /** @return keys stored now. */
    public int size()
    {
        return (int)(tail - head);
    }

    /** @return the most keys stored at once. */
    public int capacity()
    {
        return capacity;
    }

    /** Folds every stored key, oldest first, into the digest. */
    public void digest(final StateDigest digest)
    {
        digest.addRing(ring, STRIDE, headPosition, size(), capacity);
    }

    /** Folds an image's keys exactly as {@link #digest} folds the table they were copied from. */
    public static void digestImage(final LongSection image, final StateDigest digest)
    {
        RingCopy.digest(image, STRIDE, digest);
    }

    /** @return the longs {@link #copyTo} fills: what {@link dev.tally.ledger.Ledger#reserveImage} sizes the image for. */
    public int imageLength()
    {
        return size() * STRIDE;
    }

    /** Copies every stored key and result, oldest first, into {@code image}: at most two array copies. */
    public void copyTo(final LongSection image)
    {
        RingCopy.copyOut(ring, STRIDE, headPosition, size(), capacity, image.resize(imageLength()));
    }

    /**
     * Fills this fresh (empty) table from an image, oldest key at ring position 0, and rebuilds the index.
     *
     * @throws IllegalArgumentException when the image does not fit this table.
     */
    public void restoreFrom(final LongSection image)
    {
        if (tail != head)
        {
            throw new IllegalStateException("restore needs an empty idempotency table");
        }
        final int size = RingCopy.copyIn("idempotency", image, ring, STRIDE, capacity);
        index.rebuild(size);
        head = 0;
        tail = size;
        headPosition = 0;
        tailPosition = size == capacity ? 0 : size;
    }

    /** Visits every stored key, oldest first (snapshots). */
    public void forEach(final EntryVisitor visitor)
    {
        for (long seq = head; seq < tail; seq++)
        {
            final int offset = (int)(seq % capacity) * STRIDE;
            visitor.visit(ring, offset);
        }
    }

    /** Receives one stored key as {@value #STRIDE} consecutive longs of {@code ring} from {@code offset}. */
    @FunctionalInterface
    public interface EntryVisitor
    {
        void visit(long[] ring, int offset);
    }
}
