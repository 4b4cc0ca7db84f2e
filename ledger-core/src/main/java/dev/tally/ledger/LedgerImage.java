package dev.tally.ledger;

import dev.tally.ledger.image.StateImage;

/**
 * The ledger's state as a snapshot sees it: copied into a {@link StateImage} (array copies of the live part of every
 * table, the journal position and the counters), put back from one into a fresh ledger, and folded into the state
 * hash. The three walk the tables in the same order as {@link StateImage#stateHash()}, which hashes an image alone, so
 * a ledger, its image and the ledger restored from it have one hash.
 */
final class LedgerImage
{
    private final LedgerConfig config;
    private final LedgerState state;

    LedgerImage(final LedgerConfig config, final LedgerState state)
    {
        this.config = config;
        this.state = state;
    }

    /** @see Ledger#copyTo */
    void copyTo(final StateImage image)
    {
        image.position(state.lastJournalIndex, state.nowNs, state.commandsApplied, state.transfersPosted);
        image.config(config);
        state.accounts.copyTo(image);
        state.keys.copyTo(image.keys());
        state.references.copyTo(image.references());
        state.transfers.copyTo(image);
        state.holds.copyTo(image.holds());
    }

    /** @see Ledger#reserveImage */
    void reserve(final StateImage image)
    {
        state.accounts.reserveImage(image);
        image.keys().reserve(state.keys.imageLength());
        image.references().reserve(state.references.imageLength());
        state.transfers.reserveImage(image);
        image.holds().reserve(state.holds.imageLength());
    }

    /** Fills the fresh (empty) state from {@code image}, taken with this configuration. */
    void restoreFrom(final StateImage image)
    {
        state.accounts.restoreFrom(image);
        state.keys.restoreFrom(image.keys());
        state.references.restoreFrom(image.references());
        state.transfers.restoreFrom(image);
        state.holds.restoreFrom(image.holds());
        state.lastJournalIndex = image.lastJournalIndex();
        state.nowNs = image.nowNs();
        state.commandsApplied = image.commandsApplied();
        state.transfersPosted = image.transfersPosted();
    }

    /** @see Ledger#stateHash */
    long stateHash()
    {
        final StateDigest digest = new StateDigest();
        digest.add(state.lastJournalIndex).add(state.nowNs);
        state.accounts.digest(digest);
        state.holds.digest(digest);
        state.keys.digest(digest);
        state.references.digest(digest);
        state.transfers.digest(digest);
        return digest.value();
    }
}
