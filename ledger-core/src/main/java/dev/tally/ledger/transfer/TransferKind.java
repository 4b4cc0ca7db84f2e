package dev.tally.ledger.transfer;

/** How a transfer came to be. Stable codes: stored in snapshots. */
public final class TransferKind
{
    /** A transfer requested directly. */
    public static final int TRANSFER = 0;
    /** A reversal of an earlier transfer (not itself reversible). */
    public static final int REVERSAL = 1;
    /** The transfer a hold capture posted. */
    public static final int CAPTURE = 2;

    private TransferKind()
    {
    }

    /** @return the kind whose {@link #name} is {@code name}; -1 for none. */
    public static int of(final String name)
    {
        switch (name)
        {
            case "transfer": return TRANSFER;
            case "reversal": return REVERSAL;
            case "capture": return CAPTURE;
            default: return -1;
        }
    }

    /** @return the lower-case name used on the wire. */
    public static String name(final int kind)
    {
        switch (kind)
        {
            case TRANSFER: return "transfer";
            case REVERSAL: return "reversal";
            case CAPTURE: return "capture";
            default: return "unknown";
        }
    }
}
