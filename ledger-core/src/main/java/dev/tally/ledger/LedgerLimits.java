package dev.tally.ledger;

/**
 * Hard limits of the domain, fixed at compile time. Configurable capacities live in
 * {@link LedgerConfig}; these are the shapes the wire format and the tables are built around, and the largest
 * capacity each table can address, which {@link LedgerConfig} refuses to exceed.
 */
public final class LedgerLimits
{
    /** Sub-balances of one account: 1 for an ordinary account, up to 64 for a hot one. */
    public static final int SUB_BALANCES_MAX = 64;
    /** Operations in one {@code POST /v1/batch}. */
    public static final int BATCH_OPERATIONS_MAX = 8_190;
    /** Bytes of a transfer reference (visible ASCII). */
    public static final int REFERENCE_LENGTH_MAX = 64;
    /**
     * Bytes of a transfer's metadata in its canonical form (a JSON object of string members, UTF-8; the
     * gateway builds and bounds it). Opaque to the ledger: journaled, carried to PostgreSQL and the outbox.
     */
    public static final int METADATA_LENGTH_MAX = 1_024;
    /** Bytes of an idempotency key (visible ASCII), as the spec allows. */
    public static final int IDEMPOTENCY_KEY_LENGTH_MAX = 255;
    /** Journal indexes fit in 48 bits so that they fit inside a UUIDv7 with room for the leg ordinal. */
    public static final long JOURNAL_INDEX_MAX = (1L << 48) - 1;
    /** Ledger legs one command may produce: one per sub-balance drawn plus the credit leg. */
    public static final int LEGS_PER_COMMAND_MAX = SUB_BALANCES_MAX + 1;
    /**
     * Bits of the ordinal that tells apart the ids of one kind a command makes (its entries, its events) in their
     * UUIDv7 ({@link dev.tally.ledger.id.Uuid7}).
     */
    public static final int ID_ORDINAL_BITS = 14;
    /**
     * Holds one tick may expire at most: each expired hold is an event of the tick, with an ordinal of its own
     * ({@value #ID_ORDINAL_BITS} bits), so that no two share an id.
     */
    public static final int EXPIRIES_PER_TICK_MAX = 1 << ID_ORDINAL_BITS;

    /**
     * Keys, references and transfers past their windows that each command expires, of each kind, before
     * it runs (a batch: this many per operation, at its first operation). An operation adds at most one of
     * each, so expiry keeps up at any sustained rate and drains a backlog left by a long quiet spell, while
     * bounding the work one command adds: at most 6 index removals. Ticks are not needed for these kinds.
     */
    public static final int EXPIRIES_PER_OPERATION = 2;

    /** Hold timeouts are bounded so that a deadline in nanoseconds cannot overflow: 366 days. */
    public static final long HOLD_TIMEOUT_MAX_MS = 366L * 24 * 60 * 60 * 1000;
    /** Overdraft limits are bounded so that the funds check {@code floor + amount} cannot overflow. */
    public static final long OVERDRAFT_LIMIT_MAX_MINOR = 1L << 62;

    /**
     * The longest Java array every JVM allocates ({@code Integer.MAX_VALUE} itself is refused by some): every
     * table's backing arrays must fit it, and {@link LedgerConfig} refuses capacities that would not.
     */
    public static final int ARRAY_LENGTH_MAX = Integer.MAX_VALUE - 8;

    // The largest capacity of each table: each of its backing arrays must fit one Java array, so that every offset
    // computed in int stays exact. Each table's widest array sets it.

    /** Longs of one account record: one 64-byte cache line ({@link dev.tally.ledger.account.Accounts}). */
    public static final int ACCOUNT_RECORD_LONGS = 8;
    /** Longs the account records and sub-balance pairs (2 per sub-balance) may fill together: they share one array. */
    public static final int ACCOUNT_CELLS_MAX = Integer.MAX_VALUE - 64;
    /** The most accounts: a record and at least one sub-balance pair each, in {@link #ACCOUNT_CELLS_MAX} longs. */
    public static final int ACCOUNTS_CAPACITY_MAX = ACCOUNT_CELLS_MAX / (ACCOUNT_RECORD_LONGS + 2);
    /** Longs per stored idempotency key and its result ({@link dev.tally.ledger.idempotency.IdempotencyTable}). */
    public static final int IDEMPOTENCY_KEY_LONGS = 12;
    /** The most idempotency keys: their records fill one {@code long[]} (178,956,969; the index addresses more). */
    public static final int IDEMPOTENCY_KEYS_CAPACITY_MAX = ARRAY_LENGTH_MAX / IDEMPOTENCY_KEY_LONGS;
    /** Longs per kept reference: its digest, its transfer's journal index, its time. */
    public static final int REFERENCE_LONGS = 4;
    /** The most references: their records fill one {@code long[]} (536,870,909, just under what the index addresses). */
    public static final int REFERENCES_CAPACITY_MAX = ARRAY_LENGTH_MAX / REFERENCE_LONGS;
    /** Longs of fields per transfer kept in memory ({@link dev.tally.ledger.transfer.TransferTable}). */
    public static final int TRANSFER_LONGS = 11;
    /**
     * The most transfers kept in memory: the widest of their arrays is the reference texts ({@value #REFERENCE_LENGTH_MAX}
     * bytes a transfer), so that every offset ({@code position * TRANSFER_LONGS}, {@code position * REFERENCE_LENGTH_MAX})
     * is an {@code int}: 33,554,431.
     */
    public static final int TRANSFERS_CAPACITY_MAX =
        ARRAY_LENGTH_MAX / (TRANSFER_LONGS > REFERENCE_LENGTH_MAX ? TRANSFER_LONGS : REFERENCE_LENGTH_MAX);
    /**
     * The most live holds: their (journal index → slot) map is sized at twice the capacity, rounded up to a power of
     * two, with two longs per bucket in one array, which must stay below 2^31 entries. The other arrays are one element
     * per hold.
     */
    public static final int HOLDS_CAPACITY_MAX = 1 << 28;

    private LedgerLimits()
    {
    }
}
