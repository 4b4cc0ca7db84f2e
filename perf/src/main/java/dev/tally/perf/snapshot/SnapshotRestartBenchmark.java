package dev.tally.perf.snapshot;

import dev.tally.gateway.http.ApiKeys;
import dev.tally.gateway.http.HttpLimits;
import dev.tally.pipeline.LedgerPipeline;
import dev.tally.server.ServerConfig;
import dev.tally.server.TallyServer;
import dev.tally.journal.Durability;
import dev.tally.journal.Journal;
import dev.tally.journal.JournalReader;
import dev.tally.journal.ReplayResult;
import dev.tally.ledger.Ledger;
import dev.tally.ledger.LedgerStats;
import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.StateDigest;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.currency.CurrencyCode;
import dev.tally.ledger.image.StateImage;
import dev.tally.snapshotter.LedgerRecovery;
import dev.tally.snapshotter.RecoveredLedger;
import dev.tally.snapshotter.SnapshotDirectory;
import dev.tally.snapshotter.SnapshotFormat;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * Snapshot and restart figures on a real journal on disk, one phase after the other:
 *
 * <pre>
 *   1 generate   accounts CREATE_ACCOUNT, then transfers up to `commands` journaled commands (1 ms of
 *                journaled time apart, windows of 1,000 s: about 1,000,000 live keys and transfers at the
 *                end), appended to the journal and applied to a live ledger; a SNAPSHOT command `tail`
 *                commands before the end, where the live ledger is copied into an image (the business
 *                thread's pause: first copy allocating, then into the reused image), the image hashed
 *                and written (the snapshotter thread's work) -- timed, and the file's size
 *   2 replay     the journal alone (read, check, decode, apply nothing), then a fresh ledger from
 *                JournalReader.replay(0): commands/s
 *   3 restart    LedgerRecovery: read + check + restore the snapshot, replay the tail after it: ms
 *   4 serve      a whole TallyServer (no read model) on the same folder, constructor to ready and
 *                listening: journal open with its tail check, allocation of the tables, snapshot + tail,
 *                state hash for the log, pipeline start, port bound
 * </pre>
 * Every phase ends on the same state hash as the live ledger, or the run fails (exit 1).
 *
 * <p>Usage: {@code java -Xmx10g <tally.jvm.opens> -cp perf/target/benchmarks.jar
 * dev.tally.perf.snapshot.SnapshotRestartBenchmark [commands=4000000] [tail=1000000] [accounts=1000000]}.
 */
public final class SnapshotRestartBenchmark
{
    private static final int TRY = CurrencyCode.pack("TRY");
    private static final long START_NS = 1_767_225_600_000_000_000L;
    private static final long STEP_NS = 1_000_000;
    private static final long WINDOW_MS = 1_000_000;
    /** The machine is shared: every phase also reports its CPU time, and the figure per CPU-second. */
    private static final java.lang.management.ThreadMXBean THREADS = java.lang.management.ManagementFactory.getThreadMXBean();

    public static void main(final String[] args) throws Exception
    {
        System.setProperty("chronicle.analytics.disable", "true");
        final long commands = args.length > 0 ? Long.parseLong(args[0]) : 4_000_000;
        final long tail = args.length > 1 ? Long.parseLong(args[1]) : 1_000_000;
        final int accounts = args.length > 2 ? Integer.parseInt(args[2]) : 1_000_000;
        final LedgerConfig config = new LedgerConfig(accounts, 2 * accounts, 2_000_000, 1, 1_100_000, 1,
            WINDOW_MS, WINDOW_MS, WINDOW_MS, 10_000);
        final Path dir = Files.createTempDirectory("tally-snapshot-bench");
        try
        {
            final long liveHash = generate(dir, config, commands, tail, accounts);
            System.gc();
            readOnly(dir);
            replay(dir, config, liveHash);
            System.gc();
            restart(dir, config, liveHash);
            System.gc();
            serverReady(dir, config);
        }
        finally
        {
            deleteTree(dir);
        }
    }

    /** Phase 1. @return the live ledger's final state hash. */
    private static long generate(final Path dir, final LedgerConfig config, final long commands, final long tail, final int accounts)
        throws IOException
    {
        final Ledger ledger = new Ledger(config);
        final SnapshotDirectory snapshots = SnapshotDirectory.open(SnapshotDirectory.inDataDir(dir), 3);
        final SplittableRandom random = new SplittableRandom(42);
        final Command c = new Command();
        final long startNs = System.nanoTime();
        try (Journal journal = Journal.open(dir.resolve("journal"), Durability.ASYNC))
        {
            for (long n = 1; n <= commands; n++)
            {
                c.clear();
                if (n == commands - tail)
                {
                    c.type = CommandType.SNAPSHOT;
                }
                else if (n <= accounts)
                {
                    keyed(c, CommandType.CREATE_ACCOUNT, n);
                    c.accountId = n;
                    c.currency = TRY;
                    c.debitsMustNotExceedCredits = n != 1;
                }
                else
                {
                    keyed(c, CommandType.TRANSFER, n);
                    c.debitAccountId = random.nextInt(4) == 0 ? 1 + random.nextInt(accounts) : 1;
                    c.creditAccountId = 2 + random.nextInt(accounts - 1);
                    c.currency = TRY;
                    c.amountMinor = 1 + random.nextInt(10_000);
                }
                journal.stampAndAppend(c, START_NS + n * STEP_NS);
                ledger.apply(c);
                if (c.type == CommandType.SNAPSHOT)
                {
                    takeSnapshot(ledger, snapshots);
                }
                if (n % 1_000 == 0)
                {
                    journal.endOfBatch();
                }
            }
        }
        final double seconds = (System.nanoTime() - startNs) / 1e9;
        System.out.printf("generate: %,d commands (%,d accounts, %,d live keys, %,d transfers kept) appended and applied in %.1f s "
            + "(%,.0f/s), journal %,d MB%n", commands, stats(ledger).accountCount(), stats(ledger).idempotencyKeyCount(),
            stats(ledger).transferCount(), seconds, commands / seconds, sizeOf(dir.resolve("journal")) >> 20);
        return ledger.stateHash();
    }

    /** @return the figures of a ledger this thread applies commands to, as they are now. */
    private static LedgerStats stats(final Ledger ledger)
    {
        return ledger.publishStats();
    }

    private static void keyed(final Command c, final CommandType type, final long n)
    {
        c.type = type;
        c.tenantId = 1;
        c.keyHi = StateDigest.mix(n);
        c.keyLo = StateDigest.mix(~n);
        c.fingerprintHi = n;
        c.fingerprintLo = ~n;
    }

    /** The business thread's part (the copy), then the snapshotter thread's (hash, encode, write), timed. */
    private static void takeSnapshot(final Ledger ledger, final SnapshotDirectory snapshots) throws IOException
    {
        final StateImage image = new StateImage();
        long t = System.nanoTime();
        ledger.copyTo(image);
        final long firstCopyNs = System.nanoTime() - t;
        t = System.nanoTime();
        final long cpuT = THREADS.getCurrentThreadCpuTime();
        ledger.copyTo(image);
        final long reusedCopyNs = System.nanoTime() - t;
        final long reusedCopyCpuNs = THREADS.getCurrentThreadCpuTime() - cpuT;
        t = System.nanoTime();
        final long hash = image.stateHash();
        final long hashNs = System.nanoTime() - t;
        t = System.nanoTime();
        final Path file = snapshots.write(image, hash, new SnapshotFormat());
        final long writeNs = System.nanoTime() - t;
        if (hash != ledger.stateHash())
        {
            throw new IllegalStateException("image hash differs from the ledger's");
        }
        System.out.printf("snapshot at journal index %,d: %,d accounts, %,d live keys, %,d transfers; business-thread copy %.1f ms "
            + "(CPU %.1f ms; first, allocating the image: %.1f ms); image hash %.1f ms; encode + CRC32C + write + force + rename %.1f ms; "
            + "file %,d MB%n", ledger.lastJournalIndex(), stats(ledger).accountCount(), stats(ledger).idempotencyKeyCount(),
            stats(ledger).transferCount(), reusedCopyNs / 1e6, reusedCopyCpuNs / 1e6, firstCopyNs / 1e6, hashNs / 1e6, writeNs / 1e6,
            Files.size(file) >> 20);
    }

    /** Phase 2a: the journal's share of a replay: read, CRC-check, decode and sequence-check, apply nothing. */
    private static void readOnly(final Path dir)
    {
        final long[] count = new long[1];
        final long startNs = System.nanoTime();
        final long cpuStartNs = THREADS.getCurrentThreadCpuTime();
        final ReplayResult result;
        try (JournalReader reader = JournalReader.open(dir.resolve("journal")))
        {
            result = reader.replay(0, command -> count[0]++);
        }
        final double seconds = (System.nanoTime() - startNs) / 1e9;
        final double cpuSeconds = (THREADS.getCurrentThreadCpuTime() - cpuStartNs) / 1e9;
        System.out.printf("journal read only: %,d commands in %.2f s = %,.0f commands/s; CPU %.2f s = %,.0f commands per CPU-second (%s)%n",
            count[0], seconds, count[0] / seconds, cpuSeconds, count[0] / cpuSeconds, result.status());
    }

    /** Phase 2b. */
    private static void replay(final Path dir, final LedgerConfig config, final long liveHash)
    {
        final Ledger ledger = new Ledger(config);
        final long startNs = System.nanoTime();
        final long cpuStartNs = THREADS.getCurrentThreadCpuTime();
        final ReplayResult result;
        try (JournalReader reader = JournalReader.open(dir.resolve("journal")))
        {
            result = reader.replay(0, ledger::apply);
        }
        ledger.endReplay();
        final double seconds = (System.nanoTime() - startNs) / 1e9;
        final double cpuSeconds = (THREADS.getCurrentThreadCpuTime() - cpuStartNs) / 1e9;
        check(liveHash, ledger.stateHash(), "full replay");
        System.out.printf("replay from scratch: %,d commands in %.2f s = %,.0f commands/s; CPU %.2f s = %,.0f commands per CPU-second (%s)%n",
            result.deliveredCount(), seconds, result.deliveredCount() / seconds, cpuSeconds, result.deliveredCount() / cpuSeconds,
            result.status());
    }

    /** Phase 3. */
    private static void restart(final Path dir, final LedgerConfig config, final long liveHash) throws IOException
    {
        final long startNs = System.nanoTime();
        final long cpuStartNs = THREADS.getCurrentThreadCpuTime();
        final RecoveredLedger recovered;
        try (JournalReader reader = JournalReader.open(dir.resolve("journal")))
        {
            recovered = LedgerRecovery.recover(SnapshotDirectory.open(SnapshotDirectory.inDataDir(dir), 3), reader::replay, config,
                Long.MAX_VALUE, (l, c) -> { });
        }
        final long totalMs = (System.nanoTime() - startNs) / 1_000_000;
        final long cpuMs = (THREADS.getCurrentThreadCpuTime() - cpuStartNs) / 1_000_000;
        check(liveHash, recovered.ledger().stateHash(), "restart");
        System.out.printf("restart: snapshot at %,d read, checked and restored in %,d ms; %,d commands after it replayed in %,d ms; "
            + "ready in %,d ms (CPU %,d ms)%n", recovered.snapshotIndex(), recovered.loadMs(), recovered.replay().deliveredCount() - 1,
            recovered.replayMs(), totalMs, cpuMs);
    }

    /** Phase 4: what {@code tally serve} takes to be ready on this data folder. */
    private static void serverReady(final Path dir, final LedgerConfig config) throws Exception
    {
        final ServerConfig server = new ServerConfig("127.0.0.1", 0, dir, Durability.ASYNC,
            ApiKeys.parse(java.util.List.of("bench:bench-secret-key")), 1, config, LedgerPipeline.PipelineConfig.defaults(),
            HttpLimits.defaults());
        final long startNs = System.nanoTime();
        try (TallyServer tally = new TallyServer(server))
        {
            final long readyMs = (System.nanoTime() - startNs) / 1_000_000;
            System.out.printf("tally serve on this folder: ready and listening in %,d ms (started from the snapshot at %,d)%n", readyMs,
                tally.snapshotter().writtenIndex());
        }
    }

    private static void check(final long expected, final long actual, final String what)
    {
        if (expected != actual)
        {
            System.out.println("FAILED: " + what + " ends on state hash " + StateDigest.hex(actual) + ", live " + StateDigest.hex(expected));
            System.exit(1);
        }
    }

    private static long sizeOf(final Path dir) throws IOException
    {
        try (Stream<Path> files = Files.walk(dir))
        {
            return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
    }

    private static void deleteTree(final Path root) throws IOException
    {
        try (Stream<Path> paths = Files.walk(root))
        {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
