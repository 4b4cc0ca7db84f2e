package dev.tally.persistence.writer;

import dev.tally.ledger.LedgerLimits;

/**
 * Byte layouts of the records the {@link EffectRecorder} writes into the ring and the
 * {@link LedgerWriter} reads back. Native byte order (the ring never leaves the process), every offset
 * built from the previous one plus its size. No version field: the ring lives and dies with one process.
 *
 * <p>A unit of work (one command, or a whole atomic batch) is framed as
 * {@code UNIT_BEGIN, (ENTRY | BALANCE | EVENT)*, UNIT_END}. The writer only ever commits whole units,
 * so the watermark is always the last journal index of a unit.
 *
 * <pre>
 * UNIT_BEGIN (16 B)            ENTRY (56 B)                 BALANCE (48 B)
 *   0 lastIndex      long        0 commandIndex   long        0 commandIndex long
 *   8 timestampNs    long        8 timestampNs    long        8 tenantId     long
 *                               16 tenantId       long       16 accountId    long
 * UNIT_END (8 B)                24 accountId      long       24 postedMinor  long
 *   0 lastIndex      long       32 amountMinor    long       32 heldMinor    long
 *                               40 balanceAfter   long       40 subIndex     int
 *                               48 ordinal        short      44 (padding)    int
 *                               50 kind           short
 *                               52 currency       int
 *
 * EVENT (96 B + reference + metadata)
 *   0 commandIndex long   24 subject  long   48 amountMinor long   72 ordinal   int   84 auxInt          int
 *   8 timestampNs  long   32 accountA long   56 extra       long   76 typeCode  int   88 referenceLength int
 *  16 tenantId     long   40 accountB long   64 auxLong     long   80 currency  int   92 metadataLength  int
 *  96 reference bytes (0..64), then metadata bytes (0..1,024) at 96 + referenceLength
 * </pre>
 *
 * <p>ENTRY has no transfer index: a transfer's legs are posted by the command that creates the transfer, so its
 * journal index is the entry's command index (the recorder checks it). That keeps the record at 56 B with the
 * running balance in it, a plain transfer at ≤ 450 ring bytes ({@code WriterConfigTest}).
 *
 * <p>EVENT carries, in its aux fields and variable part, what an event of the ledger's {@code EffectLog} holds
 * beyond the common fields for its type:
 * <ul>
 *   <li>ACCOUNT_CREATED: auxInt = 1 when debits must not exceed credits, auxLong = overdraft limit; the account's
 *   metadata when it was created with some.</li>
 *   <li>ACCOUNT_METADATA_UPDATED: the account's new metadata (none: removed).</li>
 *   <li>TRANSFER_POSTED: the reference text, and the transfer's metadata (its canonical JSON object, UTF-8,
 *   which the ledger hands on with the event and does not keep). A transfer without metadata pays only the
 *   4-byte length field.</li>
 *   <li>TRANSFER_REVERSED: auxLong = journaled time of the reversed transfer (its id derives from it).</li>
 * </ul>
 */
final class EffectRecords
{
    static final int UNIT_BEGIN = 1;
    static final int ENTRY = 2;
    static final int BALANCE = 3;
    static final int EVENT = 4;
    static final int UNIT_END = 5;

    static final int UNIT_LAST_INDEX = 0;
    static final int UNIT_TIMESTAMP = UNIT_LAST_INDEX + Long.BYTES;
    static final int UNIT_BEGIN_LENGTH = UNIT_TIMESTAMP + Long.BYTES;
    static final int UNIT_END_LENGTH = UNIT_LAST_INDEX + Long.BYTES;

    static final int ENTRY_COMMAND_INDEX = 0;
    static final int ENTRY_TIMESTAMP = ENTRY_COMMAND_INDEX + Long.BYTES;
    static final int ENTRY_TENANT = ENTRY_TIMESTAMP + Long.BYTES;
    static final int ENTRY_ACCOUNT = ENTRY_TENANT + Long.BYTES;
    static final int ENTRY_AMOUNT = ENTRY_ACCOUNT + Long.BYTES;
    /** The account's posted total right after the entry (all its sub-balances). */
    static final int ENTRY_BALANCE_AFTER = ENTRY_AMOUNT + Long.BYTES;
    /** An entry's ordinal in its command's id (at most {@code Uuid7.ORDINAL_MAX}, 14 bits): a short. */
    static final int ENTRY_ORDINAL = ENTRY_BALANCE_AFTER + Long.BYTES;
    /** The transfer's {@code TransferKind}, a short beside the ordinal. */
    static final int ENTRY_KIND = ENTRY_ORDINAL + Short.BYTES;
    static final int ENTRY_CURRENCY = ENTRY_KIND + Short.BYTES;
    static final int ENTRY_LENGTH = ENTRY_CURRENCY + Integer.BYTES;

    static final int BALANCE_COMMAND_INDEX = 0;
    static final int BALANCE_TENANT = BALANCE_COMMAND_INDEX + Long.BYTES;
    static final int BALANCE_ACCOUNT = BALANCE_TENANT + Long.BYTES;
    static final int BALANCE_POSTED = BALANCE_ACCOUNT + Long.BYTES;
    static final int BALANCE_HELD = BALANCE_POSTED + Long.BYTES;
    static final int BALANCE_SUB = BALANCE_HELD + Long.BYTES;
    static final int BALANCE_LENGTH = BALANCE_SUB + 2 * Integer.BYTES;

    static final int EVENT_COMMAND_INDEX = 0;
    static final int EVENT_TIMESTAMP = EVENT_COMMAND_INDEX + Long.BYTES;
    static final int EVENT_TENANT = EVENT_TIMESTAMP + Long.BYTES;
    static final int EVENT_SUBJECT = EVENT_TENANT + Long.BYTES;
    static final int EVENT_ACCOUNT_A = EVENT_SUBJECT + Long.BYTES;
    static final int EVENT_ACCOUNT_B = EVENT_ACCOUNT_A + Long.BYTES;
    static final int EVENT_AMOUNT = EVENT_ACCOUNT_B + Long.BYTES;
    static final int EVENT_EXTRA = EVENT_AMOUNT + Long.BYTES;
    static final int EVENT_AUX_LONG = EVENT_EXTRA + Long.BYTES;
    static final int EVENT_ORDINAL = EVENT_AUX_LONG + Long.BYTES;
    static final int EVENT_TYPE = EVENT_ORDINAL + Integer.BYTES;
    static final int EVENT_CURRENCY = EVENT_TYPE + Integer.BYTES;
    static final int EVENT_AUX_INT = EVENT_CURRENCY + Integer.BYTES;
    static final int EVENT_REFERENCE_LENGTH = EVENT_AUX_INT + Integer.BYTES;
    static final int EVENT_METADATA_LENGTH = EVENT_REFERENCE_LENGTH + Integer.BYTES;
    /** Start of the variable part: the reference bytes, then the metadata bytes right after them. */
    static final int EVENT_REFERENCE = EVENT_METADATA_LENGTH + Integer.BYTES;
    /** An event with a full reference and no metadata: the largest record of a transfer without metadata. */
    static final int EVENT_LENGTH_WITHOUT_METADATA_MAX = EVENT_REFERENCE + LedgerLimits.REFERENCE_LENGTH_MAX;
    static final int EVENT_LENGTH_MAX = EVENT_LENGTH_WITHOUT_METADATA_MAX + LedgerLimits.METADATA_LENGTH_MAX;

    private EffectRecords()
    {
    }
}
