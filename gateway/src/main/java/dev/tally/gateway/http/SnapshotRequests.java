package dev.tally.gateway.http;

/** {@code POST /admin/snapshot}: asks the snapshotter for a snapshot now, and says where the last one stands. */
public interface SnapshotRequests
{
    /** @return the journal index of the newest snapshot written (or loaded at start). */
    long writtenIndex();

    /** @return the journal index the ledger has applied. */
    long appliedIndex();

    /** Asks for a snapshot at the next opportunity; returns at once. */
    void requestNow();
}
