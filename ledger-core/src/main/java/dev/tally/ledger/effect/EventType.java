package dev.tally.ledger.effect;

/** Outbox events the ledger emits. Stable codes: stored in PostgreSQL and snapshots; append only. */
public enum EventType
{
    ACCOUNT_CREATED(1, "AccountCreated"),
    TRANSFER_POSTED(2, "TransferPosted"),
    TRANSFER_REVERSED(3, "TransferReversed"),
    HOLD_CREATED(4, "HoldCreated"),
    HOLD_CAPTURED(5, "HoldCaptured"),
    HOLD_VOIDED(6, "HoldVoided"),
    HOLD_EXPIRED(7, "HoldExpired"),
    HOLD_MARKED_UNKNOWN(8, "HoldMarkedUnknown"),
    /** An account's debits (extra 0) or debits and credits (extra 1) were frozen. */
    ACCOUNT_FROZEN(9, "AccountFrozen"),
    ACCOUNT_UNFROZEN(10, "AccountUnfrozen"),
    ACCOUNT_CLOSED(11, "AccountClosed"),
    /**
     * A command took an account's available balance (posted - held, over all its sub-balances) below its low-balance
     * threshold: amount is the available balance after the command, extra the threshold.
     */
    ACCOUNT_BALANCE_LOW(12, "AccountBalanceLow"),
    /** An account whose low-balance alert fired is back at or above its threshold: amount and extra as above. */
    ACCOUNT_BALANCE_RECOVERED(13, "AccountBalanceRecovered"),
    /** An account's metadata was replaced: the event carries the new metadata (none when it was removed). */
    ACCOUNT_METADATA_UPDATED(14, "AccountMetadataUpdated");

    /**
     * @return true for the events whose aggregate is the account: its lifecycle (created, frozen, unfrozen, closed), its
     * metadata updates and its low-balance alerts.
     */
    public boolean isAccountEvent()
    {
        return this == ACCOUNT_CREATED || isStatusChange() || this == ACCOUNT_METADATA_UPDATED || isBalanceAlert();
    }

    /** @return true for a low-balance alert's events, which change nothing but report a balance. */
    public boolean isBalanceAlert()
    {
        return this == ACCOUNT_BALANCE_LOW || this == ACCOUNT_BALANCE_RECOVERED;
    }

    /** @return true for the events that change an account's lifecycle status (frozen, unfrozen, closed). */
    public boolean isStatusChange()
    {
        return this == ACCOUNT_FROZEN || this == ACCOUNT_UNFROZEN || this == ACCOUNT_CLOSED;
    }

    private static final EventType[] BY_CODE = new EventType[16];

    static
    {
        for (final EventType type : values())
        {
            BY_CODE[type.code] = type;
        }
    }

    private final int code;
    private final String wireName;

    EventType(final int code, final String wireName)
    {
        this.code = code;
        this.wireName = wireName;
    }

    public int code()
    {
        return code;
    }

    /** @return the name used in event payloads and webhooks. */
    public String wireName()
    {
        return wireName;
    }

    public static EventType fromCode(final int code)
    {
        return code > 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
