package dev.tally.perf.persistence;

import dev.tally.persistence.db.Database;
import dev.tally.persistence.db.EmbeddedDatabase;
import dev.tally.persistence.read.AccountAtRow;
import dev.tally.persistence.read.EntryRow;
import dev.tally.persistence.read.LedgerReads;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Latency of the history reads on one account with many entries in the read model (issue 34's target: p99 &lt; 10 ms
 * for a balance at an instant, &lt; 50 ms for a 1,000-entry statement page, on 10 M entries).
 *
 * <pre>
 *  harness thread ─► LedgerReads (HikariCP, 1 connection at a time) ─► postgres (embedded, fsync on)
 *      accountAtInstant: one backward probe of (tenant_id, account_id, id)
 *      accountAtIndex:   tally_entry_at_index, ≤ 48 such probes
 *      statement page:   open a StatementCursor at a random instant, read 1,000 entries (one index range scan)
 * </pre>
 *
 * The account's entries are generated inside PostgreSQL (one {@code INSERT … SELECT generate_series}: an entry of
 * +1.00 per journaled millisecond, journal index i at millisecond base + i, running balance 100 × i), not through the
 * writer: the reads are measured, not the load. Run from the repository's root (data under {@code target/history-pg}):
 * <pre>
 * mvn -B -q -pl perf -am package -DskipTests
 * java -Xmx1g --add-exports=java.base/jdk.internal.misc=ALL-UNNAMED -cp perf/target/benchmarks.jar \
 *     dev.tally.perf.persistence.HistoryReadHarness entries=10000000 probes=2000 pages=200
 * </pre>
 * Arguments (key=value): {@code entries} of the account (10,000,000), {@code probes} per point read (2,000), {@code pages}
 * statement pages (200), {@code reuse} ({@code false}; {@code true}: measure again on the database an earlier run with as
 * many entries left in {@code target/history-pg}, without the fill's minutes, its rows exactly as that run wrote them).
 * Checked result: every answer is the balance the generated entries give at that point, every
 * page has 1,000 entries with running balances that follow; otherwise the run fails.
 */
public final class HistoryReadHarness
{
    private static final long TENANT = 1;
    private static final long ACCOUNT = 42;
    private static final int PAGE_ENTRIES = 1_000;
    private static final long ENTRY_MINOR = 100;

    private HistoryReadHarness()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int entries = intArg(args, "entries", 10_000_000);
        final int probes = intArg(args, "probes", 2_000);
        final int pages = intArg(args, "pages", 200);
        final boolean reuse = Boolean.parseBoolean(stringArg(args, "reuse", "false"));
        final Path directory = reuse ? HarnessDirectory.kept("history-pg") : HarnessDirectory.fresh("history-pg");
        try (EmbeddedDatabase pg = EmbeddedDatabase.start(directory);
             Database db = Database.connect(pg))
        {
            db.migrate();
            final long baseMs;
            if (reuse)
            {
                baseMs = filledBaseMs(db, entries);
                check(baseMs >= 0, "reuse=true: " + directory + " holds no earlier run of " + entries + " entries; run without reuse first");
                System.out.printf("reused the %,d entries of one account an earlier run filled%n", entries);
            }
            else
            {
                baseMs = System.currentTimeMillis() - entries - 60_000L;
                final long loadStartNs = System.nanoTime();
                fill(db, baseMs, entries);
                System.out.printf("filled %,d entries of one account in %,d ms%n", entries, (System.nanoTime() - loadStartNs) / 1_000_000);
            }

            final LedgerReads reads = new LedgerReads(db.dataSource());
            final SplittableRandom random = new SplittableRandom(34);
            final long[] atInstant = new long[probes];
            final long[] atIndex = new long[probes];
            final long[] page = new long[pages];
            for (int warm = 0; warm < 200; warm++)
            {
                reads.accountAtInstant(TENANT, ACCOUNT, Instant.ofEpochMilli(baseMs + 1 + random.nextInt(entries)));
            }
            for (int p = 0; p < probes; p++)
            {
                final long i = 1 + random.nextInt(entries);
                final Instant at = Instant.ofEpochMilli(baseMs + i).plusNanos(500_000);   // half a millisecond after entry i
                final long startNs = System.nanoTime();
                final AccountAtRow row = reads.accountAtInstant(TENANT, ACCOUNT, at).orElseThrow();
                atInstant[p] = System.nanoTime() - startNs;
                check(row.postedMinor() == i * ENTRY_MINOR, "at " + at + ": posted " + row.postedMinor() + ", expected " + i * ENTRY_MINOR);
            }
            for (int p = 0; p < probes; p++)
            {
                final long i = 1 + random.nextInt(entries);
                final long startNs = System.nanoTime();
                final AccountAtRow row = reads.accountAtIndex(TENANT, ACCOUNT, i).orElseThrow();
                atIndex[p] = System.nanoTime() - startNs;
                check(row.postedMinor() == i * ENTRY_MINOR, "atIndex " + i + ": posted " + row.postedMinor());
            }
            for (int p = 0; p < pages; p++)
            {
                final long first = random.nextInt(Math.max(1, entries - PAGE_ENTRIES));
                final Instant from = Instant.ofEpochMilli(baseMs + first);
                final long startNs = System.nanoTime();
                try (LedgerReads.StatementCursor cursor = reads.statement(TENANT, ACCOUNT, from, Instant.ofEpochMilli(baseMs + entries)))
                {
                    final List<EntryRow> rows = cursor.next(PAGE_ENTRIES);
                    page[p] = System.nanoTime() - startNs;
                    check(rows.size() == Math.min(PAGE_ENTRIES, entries - first), "page from " + first + ": " + rows.size() + " entries");
                    check(rows.get(0).balanceAfterMinor() == (first + 1) * ENTRY_MINOR, "page from " + first + ": first running balance");
                }
            }
            report("balance at an instant", atInstant);
            report("balance at a journal index", atIndex);
            report("statement page of 1,000 entries (open + first page)", page);
        }
    }

    /**
     * @return the first entry's millisecond less one (the account's creation) when the database holds what {@link #fill}
     * writes for {@code entries} entries (its watermark says so), else -1.
     */
    private static long filledBaseMs(final Database db, final int entries) throws SQLException
    {
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
             java.sql.ResultSet rs = s.executeQuery("SELECT (extract(epoch FROM a.created_at) * 1000)::bigint, w.journal_index FROM accounts a" +
                 " CROSS JOIN ledger_watermark w WHERE a.tenant_id = " + TENANT + " AND a.account_id = " + ACCOUNT))
        {
            return rs.next() && rs.getLong(2) == entries + 1L ? rs.getLong(1) : -1;
        }
    }

    /** One account, its entries (one a millisecond), and a watermark past them: what the reads need of the read model. */
    private static void fill(final Database db, final long baseMs, final int entries) throws SQLException
    {
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement())
        {
            s.execute("SELECT tally_ensure_partitions(to_timestamp(" + baseMs + " / 1000.0), 1)");
            s.execute("INSERT INTO accounts VALUES (" + TENANT + ", " + ACCOUNT + ", 'USD', 1, false, 0, 1, timestamptz 'epoch' + " + baseMs +
                " * interval '1 millisecond')");
            try (PreparedStatement insert = c.prepareStatement(
                "INSERT INTO ledger_entries SELECT ids.id, ids.id, ?, ?, ?, 'USD', g, timestamptz 'epoch' + (? + g) * interval '1 millisecond', ? * g, 0" +
                " FROM generate_series(1::bigint, ?::bigint) AS g," +
                " LATERAL (SELECT (lpad(to_hex(? + g), 12, '0') || '7200' || '8' || lpad(to_hex(g << 14), 15, '0'))::uuid AS id) AS ids"))
            {
                insert.setLong(1, TENANT);
                insert.setLong(2, ACCOUNT);
                insert.setLong(3, ENTRY_MINOR);
                insert.setLong(4, baseMs);
                insert.setLong(5, ENTRY_MINOR);
                insert.setLong(6, entries);
                insert.setLong(7, baseMs);
                insert.executeUpdate();
            }
            s.execute("UPDATE ledger_watermark SET journal_index = " + (entries + 1) + ", journal_time = timestamptz 'epoch' + " +
                (baseMs + entries + 1_000) + " * interval '1 millisecond'");
            s.execute("VACUUM ANALYZE ledger_entries");
        }
    }

    private static void report(final String what, final long[] latenciesNs)
    {
        final long[] sorted = latenciesNs.clone();
        Arrays.sort(sorted);
        System.out.printf("%s: n=%d p50=%.2f ms p99=%.2f ms max=%.2f ms%n", what, sorted.length, ms(sorted, 0.50), ms(sorted, 0.99),
            sorted[sorted.length - 1] / 1e6);
    }

    private static double ms(final long[] sorted, final double quantile)
    {
        return sorted[Math.min(sorted.length - 1, (int)Math.ceil(quantile * sorted.length) - 1)] / 1e6;
    }

    private static void check(final boolean condition, final String message)
    {
        if (!condition)
        {
            System.err.println("HARNESS FAILED: " + message);
            System.exit(1);
        }
    }

    private static String stringArg(final String[] args, final String key, final String fallback)
    {
        for (final String a : args)
        {
            if (a.startsWith(key + "="))
            {
                return a.substring(key.length() + 1);
            }
        }
        return fallback;
    }

    private static int intArg(final String[] args, final String key, final int fallback)
    {
        for (final String a : args)
        {
            if (a.startsWith(key + "="))
            {
                return Integer.parseInt(a.substring(key.length() + 1).replace("_", ""));
            }
        }
        return fallback;
    }
}
