package dev.tally.perf.peer;

import dev.tally.perf.load.Target;
import java.io.PrintStream;
import java.sql.SQLException;
import java.util.List;

/**
 * The peer in one measured run: its tables emptied and its pool sized for the scenario before setup
 * ({@link #prepare}), PostgreSQL settled after setup (VACUUM ANALYZE, CHECKPOINT), the SQL check after the load.
 */
final class PeerSide implements SystemSide
{
    private final PeerServer peer;
    private final Target target;
    private final CpuMeter meter;

    PeerSide(final PeerServer peer, final Target target)
    {
        this.peer = peer;
        this.target = target;
        this.meter = new CpuMeter(peer::postgresCpuNs);
    }

    /** Empties the tables and sizes the pool: each run starts from the same empty database, at its scenario's best pool. */
    PeerSide prepare(final int poolSize) throws SQLException
    {
        peer.truncate();
        peer.resizePool(poolSize);
        return this;
    }

    @Override
    public Target target()
    {
        return target;
    }

    @Override
    public CpuMeter meter()
    {
        return meter;
    }

    @Override
    public void afterSetup() throws java.io.IOException
    {
        try
        {
            peer.settle();
        }
        catch (final SQLException ex)
        {
            throw new java.io.IOException("could not settle the peer's PostgreSQL after setup: " + ex.getMessage(), ex);
        }
        System.gc();
        meter.start();
    }

    @Override
    public boolean finish(final PrintStream log, final List<String> notes) throws SQLException
    {
        final PeerCheck.Report sqlCheck = peer.checker().run(0);
        for (final String property : sqlCheck.verified())
        {
            log.println("peer SQL check ok  " + property);
        }
        for (final String failure : sqlCheck.failures())
        {
            log.println("peer SQL check BAD " + failure);
            notes.add(failure);
        }
        meter.remeasure();
        return sqlCheck.ok();
    }
}
