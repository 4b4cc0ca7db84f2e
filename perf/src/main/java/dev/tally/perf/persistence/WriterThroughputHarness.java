package dev.tally.perf.persistence;

import dev.tally.ledger.Ledger;
import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.StateDigest;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.currency.CurrencyCode;
import dev.tally.ledger.id.Uuid7;
import dev.tally.ledger.result.ResultCode;
import dev.tally.persistence.db.Database;
import dev.tally.persistence.db.EmbeddedDatabase;
import dev.tally.persistence.verify.Verifier;
import dev.tally.persistence.writer.EffectRecorder;
import dev.tally.persistence.writer.LedgerWriter;
import dev.tally.persistence.writer.WriterConfig;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.SplittableRandom;

/**
 * Writer throughput into the embedded PostgreSQL: ledger entries (and all other rows) per second, sustained.
 *
 * <pre>
 *  harness thread (stands in for the business thread)                 tally-pg-writer                 postgres (embedded)
 *  Ledger.apply(transfer) ─► EffectRecorder.onUnit ─► ring (128 MiB) ─► WriteBatch ─► COPY/INSERT/COMMIT ─► backends, WAL, checkpoints
 *        └─ backs off while overLagBound() (the gateway's 503)
 * </pre>
 *
 * Run from the repository's root (PostgreSQL's data under {@code target/harness-pg}):
 * <pre>
 * mvn -B -q -pl perf -am package -DskipTests
 * java -Xmx3g --add-exports=java.base/jdk.internal.misc=ALL-UNNAMED -cp perf/target/benchmarks.jar \
 *     dev.tally.perf.persistence.WriterThroughputHarness transfers=1000000 accounts=10000 mode=uniform
 * </pre>
 * Arguments (key=value): {@code transfers} measured (default 1,000,000), {@code accounts} customer accounts
 * (10,000), {@code mode} uniform|hot (all credits to one 64-sub-balance account), {@code references} share of
 * transfers carrying a reference in percent (50), {@code batchRows} (the writer's default), {@code verify} true|false, and
 * {@code compare=true} to also time entries alone, five ways (bare COPY, COPY with a key, direct COPY, COPY-to-staging,
 * multi-row INSERT; {@code compareOnly=true}: only that).
 *
 * <p>Checked result: the writer must catch up exactly to the ledger's last index, the entry count must be two per
 * posted transfer, and (with {@code verify=true}) the verifier must find no difference; otherwise the run fails.
 */
public final class WriterThroughputHarness
{
    private static final int USD = CurrencyCode.pack("USD");
    private static final long START_NS = 1_767_225_600_000_000_000L;
    private static final long FUNDING = 1;
    private static final long HOT = 2;
    private static final int WARMUP_TRANSFERS = 200_000;
    private static final int TICK_EVERY = 10_000;

    private final Command c = new Command();
    private final SplittableRandom random = new SplittableRandom(7);
    private final Ledger ledger;
    private final EffectRecorder recorder;
    private final int accounts;
    private final boolean hot;
    private final int referencePercent;
    private long index;
    private long nowNs = START_NS;
    private long posted;
    private long throttledSpins;

    private WriterThroughputHarness(final Ledger ledger, final EffectRecorder recorder, final int accounts, final boolean hot,
        final int referencePercent)
    {
        this.ledger = ledger;
        this.recorder = recorder;
        this.accounts = accounts;
        this.hot = hot;
        this.referencePercent = referencePercent;
    }

    public static void main(final String[] args) throws Exception
    {
        final int transfers = intArg(args, "transfers", 1_000_000);
        final int accounts = intArg(args, "accounts", 10_000);
        final boolean hot = "hot".equals(arg(args, "mode", "uniform"));
        final int references = intArg(args, "references", 50);
        final int batchRows = intArg(args, "batchRows", WriterConfig.defaults().batchRowsMax());
        final boolean verify = Boolean.parseBoolean(arg(args, "verify", "true"));
        final boolean compare = Boolean.parseBoolean(arg(args, "compare", "false"));

        final Path directory = HarnessDirectory.fresh("harness-pg");
        try (EmbeddedDatabase pg = EmbeddedDatabase.start(directory);
             Database db = Database.connect(pg))
        {
            db.migrate();
            if (compare)
            {
                postmasterPid = Long.parseLong(java.nio.file.Files.readAllLines(directory.resolve("postmaster.pid")).get(0).trim());
                compareEntryInserts(db, transfers);
                if (Boolean.parseBoolean(arg(args, "compareOnly", "false")))
                {
                    System.exit(0);
                }
            }
            final WriterConfig config = WriterConfig.defaults().withBatch(batchRows, 10);
            final LedgerConfig ledgerConfig = LedgerConfig.defaults().withRetention(60_000, 60_000, 60_000);
            try (LedgerWriter writer = LedgerWriter.create(db, config))
            {
                final EffectRecorder recorder = writer.createRecorder(writer.watermark());
                writer.start();
                final WriterThroughputHarness h = new WriterThroughputHarness(new Ledger(ledgerConfig), recorder, accounts, hot, references);
                h.createAccounts();
                h.run(WARMUP_TRANSFERS);
                await(writer, h.ledger.lastJournalIndex());

                final long rows0 = writer.rowsWritten();
                final long entries0 = writer.entriesWritten();
                final long batches0 = writer.batchesCommitted();
                final long posted0 = h.posted;
                final long busy0 = machineBusyTicks();
                final long jvmCpu0 = jvmCpuNs();
                final long postmaster = Long.parseLong(java.nio.file.Files.readAllLines(directory.resolve("postmaster.pid")).get(0).trim());
                final long pgTicks0 = postgresTicks(postmaster);
                final long[] writerBackends = writerBackendPids(db);
                final long writerTicks0 = processTicks(writerBackends);
                final WalStats wal0 = WalStats.read(db);
                final long t0 = System.nanoTime();
                final long maxLag = h.run(transfers);
                final long producedNs = System.nanoTime() - t0;
                await(writer, h.ledger.lastJournalIndex());
                final long elapsedNs = System.nanoTime() - t0;
                final double busyCores = (machineBusyTicks() - busy0) / 100.0 / (elapsedNs / 1e9);   // USER_HZ = 100
                final double jvmCores = (jvmCpuNs() - jvmCpu0) / (double)elapsedNs;
                final long pgTicks = postgresTicks(postmaster) - pgTicks0;
                final long writerTicks = processTicks(writerBackends) - writerTicks0;
                final double pgCores = pgTicks / 100.0 / (elapsedNs / 1e9);
                final WalStats wal = WalStats.read(db).minus(wal0);

                final long entries = writer.entriesWritten() - entries0;
                final long rows = writer.rowsWritten() - rows0;
                final long batches = writer.batchesCommitted() - batches0;
                check(entries == 2 * (h.posted - posted0), "entries written " + entries + " != 2 x posted " + (h.posted - posted0));
                System.out.printf("mode=%s transfers=%,d accounts=%,d references=%d%% batchRows=%,d%n", hot ? "hot" : "uniform",
                    transfers, accounts, references, batchRows);
                System.out.printf("posted %,d transfers in %.2f s (producer done after %.2f s, throttled %,d x 100 us, max lag %,d commands)%n",
                    h.posted - posted0, elapsedNs / 1e9, producedNs / 1e9, h.throttledSpins, maxLag);
                System.out.printf("ENTRIES/s %,.0f   rows/s %,.0f   batches %,d (avg %,.0f rows, last %.1f ms)%n",
                    entries / (elapsedNs / 1e9), rows / (elapsedNs / 1e9), batches, (double)rows / batches, writer.lastBatchNs() / 1e6);
                System.out.printf("CPU (cores): machine busy %.2f of %d; this JVM %.2f (harness + writer); this PostgreSQL %.2f;" +
                    " other processes %.2f%n", busyCores, Runtime.getRuntime().availableProcessors(), jvmCores, pgCores,
                    Math.max(0, busyCores - jvmCores - pgCores));
                final long transfersPosted = h.posted - posted0;
                System.out.printf("PER TRANSFER: PostgreSQL CPU %.1f us (the writer's backends %.1f), WAL %,.0f B in %.2f records" +
                    " (%.3f full-page images), rows %.2f, transfers/s %,.0f%n", pgTicks * 10_000.0 / transfersPosted,
                    writerTicks * 10_000.0 / transfersPosted, (double)wal.bytes / transfersPosted,
                    (double)wal.records / transfersPosted, (double)wal.fullPageImages / transfersPosted, (double)rows / transfersPosted,
                    transfersPosted / (elapsedNs / 1e9));
                printMaintenance(db);
                try (Connection conn = db.dataSource().getConnection(); Statement st = conn.createStatement();
                     ResultSet rs = st.executeQuery("SELECT count(*), pg_size_pretty(pg_total_relation_size('ledger_entries_202601'))" +
                         " FROM ledger_entries"))
                {
                    rs.next();
                    System.out.printf("ledger_entries rows %,d (January partition %s)%n", rs.getLong(1), rs.getString(2));
                }
                if (verify)
                {
                    final long v0 = System.nanoTime();
                    final int status = new Verifier(h.ledger, db.dataSource()).run(System.out);
                    System.out.printf("verify took %.1f s%n", (System.nanoTime() - v0) / 1e9);
                    check(status == 0, "verify found differences");
                }
            }
        }
        System.exit(0);
    }

    private void createAccounts()
    {
        createAccount(FUNDING, 1, false);
        createAccount(HOT, 64, true);
        for (int i = 0; i < accounts; i++)
        {
            createAccount(100 + i, 1, true);
        }
    }

    /** @return the largest lag seen, in commands. */
    private long run(final int transfers)
    {
        long maxLag = 0;
        for (int i = 0; i < transfers; i++)
        {
            while (recorder.overLagBound())
            {
                throttledSpins++;   // the gateway would answer 503 here; a load generator backs off
                java.util.concurrent.locks.LockSupport.parkNanos(100_000);
            }
            maxLag = Math.max(maxLag, recorder.lagCommands());
            final long customer = 100 + random.nextInt(accounts);
            if (hot)
            {
                transfer(FUNDING, i % 2 == 0 ? HOT : customer, i);
            }
            else
            {
                final long other = 100 + random.nextInt(accounts);
                transfer(i % 2 == 0 || other == customer ? FUNDING : customer, i % 2 == 0 ? customer : other, i);
            }
            if (i % TICK_EVERY == TICK_EVERY - 1)
            {
                stamp(CommandType.TICK);
                apply();
            }
        }
        return maxLag;
    }

    private void createAccount(final long id, final int subs, final boolean constrained)
    {
        stamp(CommandType.CREATE_ACCOUNT);
        c.accountId = id;
        c.currency = USD;
        c.subBalances = subs;
        c.debitsMustNotExceedCredits = constrained;
        check(apply() == ResultCode.OK, "account " + id);
    }

    private void transfer(final long debit, final long credit, final int i)
    {
        stamp(CommandType.TRANSFER);
        c.debitAccountId = debit;
        c.creditAccountId = credit;
        c.amountMinor = debit == FUNDING ? 10_000 + random.nextInt(10_000) : 1 + random.nextInt(100);
        c.currency = USD;
        if (random.nextInt(100) < referencePercent)
        {
            final byte[] text = ("ref-" + index).getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(text, 0, c.reference, 0, text.length);
            c.referenceLength = text.length;
            c.referenceHi = StateDigest.mix(index ^ 0x5245L);
            c.referenceLo = StateDigest.mix(index ^ 0x4C4FL);
        }
        if (apply() == ResultCode.OK)
        {
            posted++;
        }
    }

    private void stamp(final CommandType type)
    {
        c.clear();
        c.journalIndex = ++index;
        nowNs += 1_000_000L;   // 1 ms of journaled time per command: a million commands stay inside January
        c.timestampNs = Math.min(nowNs, START_NS + 30L * 24 * 3600 * 1_000_000_000L);
        c.type = type;
        c.tenantId = 1;
        c.keyHi = StateDigest.mix(index);
        c.keyLo = StateDigest.mix(~index);
        c.fingerprintHi = index;
        c.fingerprintLo = index;
    }

    private ResultCode apply()
    {
        final ResultCode code = ledger.apply(c).code;
        if (ledger.isUnitComplete())
        {
            recorder.onUnit(ledger.effects());
        }
        return code;
    }

    /**
     * Entries alone, each way into an empty table, in transactions of 20,000 rows: binary COPY into a bare heap
     * (the entry's columns, no index, no constraint: what one row costs PostgreSQL at the least), the same with a
     * uuid primary key (one B-tree insert more per row), straight into ledger_entries (its monthly partition, two
     * indexes, CHECK: what the writer does in direct mode); binary COPY into a staging table then INSERT ... SELECT
     * ... ON CONFLICT DO NOTHING (its deduplicating mode); multi-row INSERT ... VALUES ... ON CONFLICT DO NOTHING,
     * 1,000 rows a statement, pipelined with JDBC batching. Per way: rows/s, PostgreSQL cores, rows per PostgreSQL
     * core-second, WAL bytes per row.
     */
    private static void compareEntryInserts(final Database db, final int transfers) throws Exception
    {
        final int rows = Math.min(1_000_000, 2 * transfers);
        try (Connection conn = db.openWriterConnection(); Statement st = conn.createStatement())
        {
            st.execute("SELECT tally_ensure_partitions('2027-01-01T00:00:00Z', 2)");
            st.execute("CREATE TEMP TABLE stage_bench (LIKE ledger_entries) ON COMMIT DELETE ROWS");
            st.execute("CREATE TABLE bench_bare (LIKE ledger_entries)");
            st.execute("CREATE TABLE bench_pk (LIKE ledger_entries, PRIMARY KEY (id))");
            conn.commit();
            System.out.printf("entries only, %,d rows each (rows/s, PostgreSQL cores, rows per PostgreSQL core-second, WAL bytes per row):%n", rows);
            final String[][] ways = {
                {"COPY into a bare table (no index)      ", "bench_bare", "copy"},
                {"COPY into a table with a uuid key      ", "bench_pk", "copy"},
                {"COPY direct into ledger_entries        ", "ledger_entries", "copy"},
                {"COPY -> staging -> INSERT ON CONFLICT  ", "ledger_entries", "staged"},
                {"multi-row INSERT ON CONFLICT           ", "ledger_entries", "insert"},
            };
            final long[] monthStartMs = {1_798_761_600_000L, 1_798_761_600_000L, 1_798_761_600_000L, 1_801_440_000_000L, 1_803_859_200_000L};
            for (int w = 0; w < ways.length; w++)
            {
                final long ticks = postgresTicks(postmasterPid);
                final WalStats wal0 = WalStats.read(db);
                final long t = System.nanoTime();
                final double rate = "insert".equals(ways[w][2]) ? insertEntries(conn, rows, monthStartMs[w])
                    : copyEntries(conn, st, rows, monthStartMs[w], ways[w][1], "staged".equals(ways[w][2]));
                final double cores = (postgresTicks(postmasterPid) - ticks) / 100.0 / ((System.nanoTime() - t) / 1e9);
                final WalStats wal = WalStats.read(db).minus(wal0);
                System.out.printf("  %s %,9.0f  %.2f  %,9.0f  %,5.0f%n", ways[w][0], rate, cores, rate / cores, (double)wal.bytes / rows);
            }
            st.execute("SET tally.maintenance = 'on'");
            st.execute("DROP TABLE bench_bare");
            st.execute("DROP TABLE bench_pk");
            for (final String month : new String[] {"202701", "202702", "202703"})
            {
                st.execute("DROP TABLE ledger_entries_" + month);
                st.execute("DROP TABLE outbox_" + month);
            }
            conn.commit();
        }
    }

    private static final int BENCH_TRANSACTION_ROWS = 20_000;
    private static long postmasterPid;

    private static double copyEntries(final Connection conn, final Statement st, final int rows, final long monthStartMs,
        final String table, final boolean staged) throws Exception
    {
        final long t0 = System.nanoTime();
        final ByteBuffer copy = ByteBuffer.allocate(BENCH_TRANSACTION_ROWS * 120 + 64);
        long next = 1;
        for (int done = 0; done < rows; done += BENCH_TRANSACTION_ROWS)
        {
            copy.clear();
            copy.put("PGCOPY\n\377\r\n\0".getBytes(StandardCharsets.ISO_8859_1)).putInt(0).putInt(0);
            for (int r = 0; r < BENCH_TRANSACTION_ROWS; r++, next++)
            {
                final long ns = monthStartMs * 1_000_000L + next * 1_000L;
                copy.putShort((short)8).putInt(16).putLong(Uuid7.hi(ns, Uuid7.KIND_ENTRY)).putLong(Uuid7.lo(next, 0))
                    .putInt(16).putLong(Uuid7.hi(ns, Uuid7.KIND_TRANSFER)).putLong(Uuid7.lo(next, 0))
                    .putInt(8).putLong(1).putInt(8).putLong(next % 10_000).putInt(8).putLong(next % 2 == 0 ? 5 : -5)
                    .putInt(3).put((byte)'U').put((byte)'S').put((byte)'D').putInt(8).putLong(next)
                    .putInt(8).putLong(ns / 1_000 - 946_684_800_000_000L);
            }
            copy.putShort((short)-1);
            final CopyIn in = conn.unwrap(PGConnection.class).getCopyAPI()
                .copyIn("COPY " + (staged ? "stage_bench" : table) + " FROM STDIN (FORMAT binary)");
            in.writeToCopy(copy.array(), 0, copy.position());
            in.endCopy();
            if (staged)
            {
                st.execute("INSERT INTO ledger_entries SELECT * FROM stage_bench ON CONFLICT DO NOTHING");
            }
            conn.commit();
        }
        return rows / ((System.nanoTime() - t0) / 1e9);
    }

    private static double insertEntries(final Connection conn, final int rows, final long monthStartMs) throws Exception
    {
        final int perStatement = 1_000;
        final StringBuilder sql = new StringBuilder("INSERT INTO ledger_entries VALUES ");
        for (int r = 0; r < perStatement; r++)
        {
            sql.append(r == 0 ? "" : ",").append("(?,?,?,?,?,?,?,?)");
        }
        sql.append(" ON CONFLICT DO NOTHING");
        final long t0 = System.nanoTime();
        long next = 1;
        try (PreparedStatement insert = conn.prepareStatement(sql.toString()))
        {
            for (int done = 0; done < rows; done += BENCH_TRANSACTION_ROWS)
            {
                for (int s = 0; s < BENCH_TRANSACTION_ROWS / perStatement; s++)
                {
                    int p = 1;
                    for (int r = 0; r < perStatement; r++, next++)
                    {
                        final long ns = monthStartMs * 1_000_000L + next * 1_000L;
                        insert.setObject(p++, new java.util.UUID(Uuid7.hi(ns, Uuid7.KIND_ENTRY), Uuid7.lo(next, 0)));
                        insert.setObject(p++, new java.util.UUID(Uuid7.hi(ns, Uuid7.KIND_TRANSFER), Uuid7.lo(next, 0)));
                        insert.setLong(p++, 1);
                        insert.setLong(p++, next % 10_000);
                        insert.setLong(p++, next % 2 == 0 ? 5 : -5);
                        insert.setString(p++, "USD");
                        insert.setLong(p++, next);
                        insert.setObject(p++, java.time.OffsetDateTime.ofInstant(
                            java.time.Instant.ofEpochSecond(0, ns), java.time.ZoneOffset.UTC));
                    }
                    insert.addBatch();
                }
                insert.executeBatch();
                conn.commit();
            }
        }
        return rows / ((System.nanoTime() - t0) / 1e9);
    }

    /** @return the pids of the writer's backends (its connections' application_name; two when it pipelines). */
    private static long[] writerBackendPids(final Database db) throws java.sql.SQLException
    {
        try (Connection conn = db.dataSource().getConnection(); Statement st = conn.createStatement();
             ResultSet rs = st.executeQuery("SELECT pid FROM pg_stat_activity WHERE application_name = 'tally-writer'"))
        {
            final java.util.List<Long> pids = new java.util.ArrayList<>();
            while (rs.next())
            {
                pids.add(rs.getLong(1));
            }
            return pids.stream().mapToLong(Long::longValue).toArray();
        }
    }

    /** @return jiffies (user + system) of these processes, 0 for each one gone. */
    private static long processTicks(final long[] pids)
    {
        long ticks = 0;
        for (final long pid : pids)
        {
            ticks += processTicks(pid);
        }
        return ticks;
    }

    /** @return jiffies (user + system) of one process, 0 when it is gone. */
    private static long processTicks(final long pid)
    {
        try
        {
            final String stat = java.nio.file.Files.readString(Paths.get("/proc", Long.toString(pid), "stat"));
            final String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]);
        }
        catch (final java.io.IOException | RuntimeException ex)
        {
            return 0;
        }
    }

    /** Prints what autovacuum did to each table the writer fills: PostgreSQL CPU the writer's backend does not spend. */
    private static void printMaintenance(final Database db) throws java.sql.SQLException
    {
        try (Connection conn = db.dataSource().getConnection(); Statement st = conn.createStatement();
             ResultSet rs = st.executeQuery("SELECT relname, autovacuum_count, autoanalyze_count, n_tup_hot_upd, n_dead_tup" +
                 " FROM pg_stat_user_tables WHERE autovacuum_count + autoanalyze_count > 0 ORDER BY relname"))
        {
            final StringBuilder line = new StringBuilder("autovacuum (vacuums/analyzes):");
            while (rs.next())
            {
                line.append(' ').append(rs.getString(1)).append(' ').append(rs.getLong(2)).append('/').append(rs.getLong(3));
            }
            System.out.println(line);
        }
    }

    /** The server's WAL counters ({@code pg_stat_wal}, PostgreSQL 14+): records, full-page images, bytes. */
    private record WalStats(long records, long fullPageImages, long bytes)
    {
        static WalStats read(final Database db) throws java.sql.SQLException
        {
            try (Connection conn = db.dataSource().getConnection(); Statement st = conn.createStatement();
                 ResultSet rs = st.executeQuery("SELECT wal_records, wal_fpi, wal_bytes FROM pg_stat_wal"))
            {
                rs.next();
                return new WalStats(rs.getLong(1), rs.getLong(2), rs.getLong(3));
            }
        }

        WalStats minus(final WalStats before)
        {
            return new WalStats(records - before.records, fullPageImages - before.fullPageImages, bytes - before.bytes);
        }
    }

    private static void await(final LedgerWriter writer, final long index)
    {
        check(writer.awaitWatermark(index, Duration.ofMinutes(10)), "writer did not catch up: " + writer.failure());
    }

    private static long jvmCpuNs()
    {
        return ((com.sun.management.OperatingSystemMXBean)ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /**
     * @return jiffies (user + system) of the postmaster and its children: the server's backends and helpers. A child
     * that has exited (an autovacuum worker, a backend) counts through the postmaster's cutime + cstime, which hold
     * what its reaped children used; without them a worker that ran inside the window would be missed.
     */
    private static long postgresTicks(final long postmasterPid)
    {
        long ticks = 0;
        final java.io.File[] procs = new java.io.File("/proc").listFiles((dir, name) -> name.chars().allMatch(Character::isDigit));
        for (final java.io.File proc : procs == null ? new java.io.File[0] : procs)
        {
            try
            {
                final String stat = java.nio.file.Files.readString(proc.toPath().resolve("stat"));
                final String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                final long pid = Long.parseLong(proc.getName());
                if (pid == postmasterPid)
                {
                    ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
                }
                else if (Long.parseLong(f[1]) == postmasterPid)
                {
                    ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
                }
            }
            catch (final java.io.IOException | RuntimeException ignored)
            {
                // the process ended meanwhile
            }
        }
        return ticks;
    }

    /** @return jiffies the whole machine spent busy (all cores, every process: the JVM and PostgreSQL). */
    private static long machineBusyTicks()
    {
        try
        {
            final String[] f = java.nio.file.Files.readAllLines(Paths.get("/proc/stat")).get(0).trim().split("\\s+");
            long busy = 0;
            for (int i = 1; i < f.length; i++)
            {
                busy += i == 4 || i == 5 ? 0 : Long.parseLong(f[i]);   // all but idle and iowait
            }
            return busy;
        }
        catch (final java.io.IOException | RuntimeException ex)
        {
            return 0;
        }
    }

    private static void check(final boolean condition, final String message)
    {
        if (!condition)
        {
            System.err.println("HARNESS FAILED: " + message);
            System.exit(1);
        }
    }

    private static String arg(final String[] args, final String key, final String fallback)
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
        return Integer.parseInt(arg(args, key, Integer.toString(fallback)).replace("_", ""));
    }
}
