package dev.tally.server;

import dev.tally.gateway.http.SnapshotRequests;
import dev.tally.snapshotter.Snapshotter;

/** {@code POST /admin/snapshot} answered by the snapshotter. */
final class SnapshotterRequests implements SnapshotRequests
{
    private final Snapshotter snapshotter;

    SnapshotterRequests(final Snapshotter snapshotter)
    {
        this.snapshotter = snapshotter;
    }

    @Override
    public long writtenIndex()
    {
        return snapshotter.writtenIndex();
    }

    @Override
    public long appliedIndex()
    {
        return snapshotter.appliedIndex();
    }

    @Override
    public void requestNow()
    {
        snapshotter.requestNow();
    }
}
