package dev.tally.ledger.image;

import dev.tally.ledger.LedgerLimits;

/** How a section grows: a quarter of headroom, so that steady growth of the state reallocates rarely. */
final class ImageCapacity
{
    private ImageCapacity()
    {
    }

    static int withHeadroom(final int length)
    {
        return (int)Math.min(LedgerLimits.ARRAY_LENGTH_MAX, length + (long)length / 4 + 64);
    }

    /**
     * What a reservation made ahead of a copy must hold: an eighth more than the state measured then, for what
     * it gains before the copy (between the snapshotter's request and the command's turn on the business thread).
     */
    static int withMargin(final int length)
    {
        return (int)Math.min(LedgerLimits.ARRAY_LENGTH_MAX, length + (long)length / 8 + 64);
    }
}
