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
    /** An account's metadata was replaced: the event carries the new metadata (none when it was removed). */
    ACCOUNT_METADATA_UPDATED(14, "AccountMetadataUpdated");

    /**
     * @return true for the events about an account (created, frozen, unfrozen, closed, metadata updated): the aggregate is
     * the account.
     */
    public boolean isAccountEvent()
    {
        return this == ACCOUNT_CREATED || isStatusChange() || this == ACCOUNT_METADATA_UPDATED;
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
