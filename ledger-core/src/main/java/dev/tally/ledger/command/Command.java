package dev.tally.ledger.command;

import dev.tally.ledger.LedgerLimits;

/**
 * One command as the business thread sees it: a mutable, reusable holder (a ring slot, a decoded
 * journal record) so that applying commands allocates nothing.
 *
 * <p>Three groups of fields, each with one owner:
 * <ul>
 *   <li><b>Stamped by the journaler</b>: {@link #journalIndex} (Tally's own gap-free sequence, starting
 *   at 1) and {@link #timestampNs} (monotonic journaled time, epoch nanoseconds). They are the only
 *   source of time and identity on the business thread.</li>
 *   <li><b>Set by the gateway</b> after validation: tenant, idempotency key digest, request
 *   fingerprint, batch position, and the payload of the command type.</li>
 *   <li>Nothing else: results live in {@link dev.tally.ledger.result.Result}.</li>
 * </ul>
 *
 * <p>The idempotency key and the reference arrive as 128-bit digests (SHA-256 truncated, computed on
 * the I/O thread over the tenant and the raw text), so the ledger stores 16 bytes per key rather than a
 * {@code String}. The raw reference text is carried too (up to {@link LedgerLimits#REFERENCE_LENGTH_MAX}
 * ASCII bytes) so that a transfer read back from memory shows it.
 */
public final class Command
{
    /**
     * Decimal digits of an amount given without a currency (capture, reversal): the largest ISO 4217
     * exponent Tally accepts, so any accepted currency's amount converts exactly.
     */
    public static final int AMOUNT_THOUSANDTHS_DIGITS = 3;

    // ---- stamped by the journaler ----
    /** Tally's journal sequence: strictly increasing, gap-free, first command is 1. */
    public long journalIndex;
    /** Journaled time in epoch nanoseconds; never decreases. */
    public long timestampNs;

    // ---- envelope set by the gateway ----
    public CommandType type;
    /** Tenant that sent the command; every account and key belongs to exactly one tenant. */
    public long tenantId;
    /** High and low 64 bits of the 128-bit idempotency key digest (scope: tenant + key). */
    public long keyHi;
    public long keyLo;
    /** High and low 64 bits of the request fingerprint (SHA-256 of operation + canonical payload). */
    public long fingerprintHi;
    public long fingerprintLo;
    /** Number of operations in the batch this command belongs to; 1 for a single request. */
    public int batchSize = 1;
    /** Position of this command inside its batch, from 0 to {@code batchSize - 1}. */
    public int batchPosition;
    /** True when every operation of the batch must succeed or none is applied. */
    public boolean atomic;

    // ---- payload (which fields matter depends on the type) ----
    /** CREATE_ACCOUNT: the new account; CREATE_HOLD: the account to reserve on. */
    public long accountId;
    /** TRANSFER: the account debited. */
    public long debitAccountId;
    /** TRANSFER, CAPTURE_HOLD: the account credited. */
    public long creditAccountId;
    /**
     * Amount in minor units; for CAPTURE_HOLD and REVERSE_TRANSFER, 0 means "all that is left", and when
     * {@link #currency} is 0 (the request named no currency) the amount is in thousandths of a major unit,
     * converted by the ledger with the hold's or transfer's exponent.
     */
    public long amountMinor;
    /** ISO 4217 alphabetic code packed by {@link dev.tally.ledger.currency.CurrencyCode#pack}. */
    public int currency;
    /** CREATE_ACCOUNT: sub-balance count, 1 to {@link LedgerLimits#SUB_BALANCES_MAX}. */
    public int subBalances = 1;
    /** CREATE_ACCOUNT: when true, available may not go below {@code -overdraftLimitMinor}. */
    public boolean debitsMustNotExceedCredits = true;
    /** CREATE_ACCOUNT: how far below zero a constrained single-sub-balance account may go. */
    public long overdraftLimitMinor;
    /**
     * REVERSE_TRANSFER: the transfer reversed; CAPTURE/VOID/MARK_UNKNOWN: the hold; TRANSFER with
     * {@link #referenceTaken}: the transfer that already carries the reference (UUIDv7 halves).
     */
    public long targetIdHi;
    public long targetIdLo;
    /** CREATE_HOLD: how long the hold lives, in milliseconds of journaled time. */
    public long holdTimeoutMs;
    /** TRANSFER: 128-bit digest of the reference (0/0 when absent). */
    public long referenceHi;
    public long referenceLo;
    /** TRANSFER: the reference text as ASCII bytes; only the first {@link #referenceLength} count. */
    public final byte[] reference = new byte[LedgerLimits.REFERENCE_LENGTH_MAX];
    public int referenceLength;
    /**
     * TRANSFER, CREATE_ACCOUNT, UPDATE_ACCOUNT_METADATA: the metadata in its canonical JSON form (UTF-8); only the first
     * {@link #metadataLength} count, 0 for none. The ledger's rules never read it: it is journaled, covered by the
     * fingerprint, echoed in the reply and handed with the transfer's or account's event to PostgreSQL and the outbox.
     * Allocated on first use ({@link LazyBytes}).
     */
    public final LazyBytes metadata = new LazyBytes(LedgerLimits.METADATA_LENGTH_MAX);
    public int metadataLength;
    /**
     * TRANSFER: the journaler found the reference on a transfer in PostgreSQL (one older than the ledger's
     * reference window, which the ledger no longer remembers), whose id it put in {@link #targetIdHi} /
     * {@link #targetIdLo}. Set before the command is journaled, so a replay decides exactly as the first run.
     */
    public boolean referenceTaken;
    /**
     * TRANSFER: the journaler could not ask the store about the reference (it did not answer), so the ledger may
     * accept it only if it remembers the reference itself as free — it cannot know that — and refuses it for now.
     */
    public boolean referenceUnchecked;
    /**
     * The command is decided under the rule that a transfer's {@code account-not-found} or {@code currency-mismatch}
     * names the account it is about (in {@link dev.tally.ledger.result.Result#extra}). True for every command made now;
     * journaled with it, so that a replay of a record written before the rule decides, and stores, exactly what was
     * answered then (the decoder reads false there).
     */
    public boolean rejectionNamesAccount = true;

    // ---- what the journal stage read from the cold index before journaling (journaled with the command) ----
    /**
     * The cold index's watermark when the journal stage looked: every item the ledger filed with a journal index up to
     * it is in the cold index, so the ledger may let such an item leave its memory while applying this command (what
     * this command needs from the cold index was looked up there). 0 before anything was filed.
     */
    public long coldWatermark;
    /** The command's idempotency key was found in the cold index; its record is in {@link #coldKey}. */
    public boolean coldKeyFound;
    /** The key's record as the cold index keeps it ({@link LedgerLimits#COLD_KEY_LONGS} longs). */
    public final long[] coldKey = new long[LedgerLimits.COLD_KEY_LONGS];
    /** REVERSE_TRANSFER: the transfer reversed was found in the cold index; its record is in {@link #coldTransfer}. */
    public boolean coldTransferFound;
    /** The reversed transfer's record as the cold index keeps it ({@link LedgerLimits#COLD_TRANSFER_LONGS} longs). */
    public final long[] coldTransfer = new long[LedgerLimits.COLD_TRANSFER_LONGS];
    /**
     * The cold index did not answer for this command (key, reference or reversed transfer): the ledger cannot know what
     * it would have said, so it refuses the command for now, storing nothing.
     */
    public boolean coldUnchecked;

    /** @return true when this transfer names a reference. */
    public boolean hasReference()
    {
        return referenceHi != 0 || referenceLo != 0;
    }

    /** @return true when this is the last operation of its batch (or a single request). */
    public boolean isLastOfBatch()
    {
        return batchPosition == batchSize - 1;
    }

    /** Resets every field to its default so that a reused holder carries nothing over. */
    public Command clear()
    {
        return reset(null);
    }

    /**
     * Resets every field to its default and sets the type. The type reference is stored only when it changes:
     * these holders (ring slots, the I/O thread's decode scratch) live in the old generation, and with G1 every
     * reference store into an old object marks a card that a refinement thread must then scan, about a
     * microsecond a card (docs/benchmarks/history/2026-11-30-g1-card-marks.md). Command after
     * command the type is usually the same.
     */
    public Command reset(final CommandType type)
    {
        if (this.type != type)
        {
            this.type = type;
        }
        journalIndex = 0;
        timestampNs = 0;
        tenantId = 0;
        keyHi = 0;
        keyLo = 0;
        fingerprintHi = 0;
        fingerprintLo = 0;
        batchSize = 1;
        batchPosition = 0;
        atomic = false;
        accountId = 0;
        debitAccountId = 0;
        creditAccountId = 0;
        amountMinor = 0;
        currency = 0;
        subBalances = 1;
        debitsMustNotExceedCredits = true;
        overdraftLimitMinor = 0;
        targetIdHi = 0;
        targetIdLo = 0;
        holdTimeoutMs = 0;
        referenceHi = 0;
        referenceLo = 0;
        referenceLength = 0;
        metadataLength = 0;
        referenceTaken = false;
        referenceUnchecked = false;
        rejectionNamesAccount = true;
        coldWatermark = 0;
        coldKeyFound = false;
        coldTransferFound = false;
        coldUnchecked = false;
        return this;
    }

    /**
     * Sets the metadata: {@code length} bytes of {@code source} (0 for none). The one way to set {@link #metadataLength}
     * outside tests of malformed commands, so that a length never runs past the lazily allocated array.
     */
    public Command metadata(final byte[] source, final int length)
    {
        if (length > 0)
        {
            System.arraycopy(source, 0, metadata.reserve(length), 0, length);
        }
        metadataLength = length;
        return this;
    }

    /** Copies every field of {@code other} into this holder (the type reference only when it differs). */
    public Command copyFrom(final Command other)
    {
        journalIndex = other.journalIndex;
        timestampNs = other.timestampNs;
        if (type != other.type)
        {
            type = other.type; // only when it changes: see reset(CommandType)
        }
        tenantId = other.tenantId;
        keyHi = other.keyHi;
        keyLo = other.keyLo;
        fingerprintHi = other.fingerprintHi;
        fingerprintLo = other.fingerprintLo;
        batchSize = other.batchSize;
        batchPosition = other.batchPosition;
        atomic = other.atomic;
        accountId = other.accountId;
        debitAccountId = other.debitAccountId;
        creditAccountId = other.creditAccountId;
        amountMinor = other.amountMinor;
        currency = other.currency;
        subBalances = other.subBalances;
        debitsMustNotExceedCredits = other.debitsMustNotExceedCredits;
        overdraftLimitMinor = other.overdraftLimitMinor;
        targetIdHi = other.targetIdHi;
        targetIdLo = other.targetIdLo;
        holdTimeoutMs = other.holdTimeoutMs;
        referenceHi = other.referenceHi;
        referenceLo = other.referenceLo;
        referenceLength = other.referenceLength;
        referenceTaken = other.referenceTaken;
        referenceUnchecked = other.referenceUnchecked;
        rejectionNamesAccount = other.rejectionNamesAccount;
        coldWatermark = other.coldWatermark;
        coldKeyFound = other.coldKeyFound;
        if (coldKeyFound)
        {
            System.arraycopy(other.coldKey, 0, coldKey, 0, LedgerLimits.COLD_KEY_LONGS);
        }
        coldTransferFound = other.coldTransferFound;
        if (coldTransferFound)
        {
            System.arraycopy(other.coldTransfer, 0, coldTransfer, 0, LedgerLimits.COLD_TRANSFER_LONGS);
        }
        coldUnchecked = other.coldUnchecked;
        System.arraycopy(other.reference, 0, reference, 0, other.referenceLength);
        metadata(other.metadata.array(), other.metadataLength);
        return this;
    }
}
