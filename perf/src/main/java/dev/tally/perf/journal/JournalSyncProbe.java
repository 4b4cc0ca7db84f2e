package dev.tally.perf.journal;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import dev.tally.journal.CommandCodec;
import dev.tally.journal.Durability;
import dev.tally.journal.Journal;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.currency.CurrencyCode;
import net.openhft.chronicle.bytes.SyncMode;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.queue.rollcycles.SparseRollCycles;
import net.openhft.chronicle.wire.DocumentContext;

/**
 * What a "sync" really costs and which system call it makes; run under
 * {@code strace -f -e trace=msync,fdatasync,fsync} (see docs/JOURNAL.md).
 *
 * <pre>
 * java $OPENS -cp perf/target/benchmarks.jar dev.tally.perf.journal.JournalSyncProbe MODE DIR COUNT BATCH
 *   MODE journal-sync       Journal, Durability.SYNC, flush() every BATCH appends
 *        journal-async      Journal, Durability.ASYNC, flush() every BATCH appends
 *        chronicle-default  raw queue, default SyncMode, appender.sync() every BATCH appends
 *        chronicle-sync     raw queue, SyncMode.SYNC, appender.sync() every BATCH appends
 * </pre>
 *
 * <p>{@code $OPENS}: the JVM flags Chronicle needs (docs/BENCHMARKS.md, "What is measured, and how to run it").
 * Prints one line: commands, flushes, time per flush and commands per second. 1,000 warm-up appends and one flush
 * come before the measured loop.
 */
public final class JournalSyncProbe
{
    private static final int WARM_UP_COUNT = 1_000;
    /** The journal's roll cycle (dev.tally.journal.JournalQueues), so that the raw queue rolls and indexes alike. */
    private static final RollCycle ROLL_CYCLE = SparseRollCycles.LARGE_HOURLY_SPARSE;

    private JournalSyncProbe()
    {
    }

    public static void main(final String[] args)
    {
        System.setProperty("chronicle.analytics.disable", "true");
        final String mode = args[0];
        final Path dir = Path.of(args[1]);
        final int count = Integer.parseInt(args[2]);
        final int batchSize = Integer.parseInt(args[3]);
        final long elapsedNs = mode.startsWith("journal-") ?
            runJournal(mode, dir, count, batchSize) : runChronicle(mode, dir, count, batchSize);
        final int flushCount = count / batchSize;
        System.out.printf("%s: %,d commands, %,d flushes (every %d), %.1f us per flush, %,.0f commands/s%n",
            mode, count, flushCount, batchSize, elapsedNs / 1e3 / Math.max(1, flushCount), count * 1e9 / elapsedNs);
    }

    private static long runJournal(final String mode, final Path dir, final int count, final int batchSize)
    {
        final Durability durability = "journal-sync".equals(mode) ? Durability.SYNC : Durability.ASYNC;
        final Command command = transfer();
        try (Journal journal = Journal.open(dir, durability))
        {
            for (int i = 0; i < WARM_UP_COUNT; i++)
            {
                journal.stampAndAppend(command, i);
            }
            journal.flush();
            System.out.println("---- measured loop starts");
            final long startNs = System.nanoTime();
            for (int i = 1; i <= count; i++)
            {
                journal.stampAndAppend(command, i);
                if (i % batchSize == 0)
                {
                    journal.flush();
                }
            }
            final long elapsedNs = System.nanoTime() - startNs;
            System.out.println("---- measured loop ends");
            return elapsedNs;
        }
    }

    private static long runChronicle(final String mode, final Path dir, final int count, final int batchSize)
    {
        final SingleChronicleQueueBuilder builder = SingleChronicleQueueBuilder.binary(dir).rollCycle(ROLL_CYCLE);
        if ("chronicle-sync".equals(mode))
        {
            builder.syncMode(SyncMode.SYNC);
        }
        final byte[] record = new byte[CommandCodec.encodedLength(transfer())];
        try (SingleChronicleQueue queue = builder.build(); ExcerptAppender appender = queue.createAppender())
        {
            System.out.println("queue syncMode " + builder.syncMode());
            for (int i = 0; i < WARM_UP_COUNT; i++)
            {
                append(appender, record);
            }
            appender.sync();
            System.out.println("---- measured loop starts");
            final long startNs = System.nanoTime();
            for (int i = 1; i <= count; i++)
            {
                append(appender, record);
                if (i % batchSize == 0)
                {
                    appender.sync();
                }
            }
            final long elapsedNs = System.nanoTime() - startNs;
            System.out.println("---- measured loop ends");
            return elapsedNs;
        }
    }

    /** A transfer with a 20-byte reference, as the journal modes append it; the raw queue modes append records of its encoded length. */
    private static Command transfer()
    {
        final Command command = new Command();
        command.type = CommandType.TRANSFER;
        command.tenantId = 1;
        command.keyHi = 0x0123_4567_89AB_CDEFL;
        command.keyLo = 0x0FED_CBA9_8765_4321L;
        command.fingerprintHi = 0x1111_2222_3333_4444L;
        command.fingerprintLo = 0x5555_6666_7777_8888L;
        command.batchSize = 1;
        command.debitAccountId = 3;
        command.creditAccountId = 4;
        command.amountMinor = 12_345;
        command.currency = CurrencyCode.pack("USD");
        final byte[] reference = "probe-reference-0001".getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(reference, 0, command.reference, 0, reference.length);
        command.referenceLength = reference.length;
        return command;
    }

    private static void append(final ExcerptAppender appender, final byte[] record)
    {
        try (DocumentContext dc = appender.writingDocument())
        {
            dc.wire().bytes().write(record);
        }
    }
}
