package dev.tally.ledger.account;

/**
 * The states of an account's low-balance alert, two bits of its record ({@link Accounts}).
 *
 * <pre>
 *   NONE ──set, available ≥ threshold──► ARMED ──a command takes available below the threshold──► FIRED  (AccountBalanceLow)
 *        ──set, available &lt; threshold──► WAITING                                                   │
 *   WAITING ──available reaches the threshold──► ARMED (no event: nothing was announced)              │
 *   FIRED ──available back at or above the threshold──► ARMED  (AccountBalanceRecovered) ◄───────────┘
 * </pre>
 * A set (or a change of threshold) starts afresh at {@link #ARMED} or {@link #WAITING} without an event, and a removal
 * goes back to {@link #NONE}: an event says that money moved across the threshold, and the reply to the set says where
 * the balance stands.
 */
public final class LowBalanceAlert
{
    /** No threshold. */
    public static final int NONE = 0;
    /** Available is at or above the threshold: the next command that takes it below fires the alert. */
    public static final int ARMED = 1;
    /** Available was below the threshold when it was set: the alert arms once available reaches it, silently. */
    public static final int WAITING = 2;
    /** The alert fired and available has not come back to the threshold since. */
    public static final int FIRED = 3;
    /** Every state bit. */
    public static final int STATE_MASK = 3;

    private LowBalanceAlert()
    {
    }

    /** @return the state's name on the wire: {@code armed}, {@code waiting} or {@code fired} ({@code none} for none). */
    public static String name(final int state)
    {
        switch (state)
        {
            case ARMED: return "armed";
            case WAITING: return "waiting";
            case FIRED: return "fired";
            default: return "none";
        }
    }
}
