package dev.tally.journal;

import java.nio.file.Path;

import dev.tally.ledger.command.Command;
import net.openhft.chronicle.bytes.SyncMode;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;

/**
 * What a "sync" really costs and which system call it makes; run under
 * {@code strace -f -e trace=msync,fdatasync,fsync} (see docs/JOURNAL.md).
 *
 * <pre>
 * JournalSyncProbe MODE DIR COUNT BATCH
 *   MODE journal-sync       Journal, Durability.SYNC, flush() every BATCH appends
 *        journal-async      Journal, Durability.ASYNC, flush() every BATCH appends
 *        chronicle-default  raw queue, default SyncMode, appender.sync() every BATCH appends
 *        chronicle-sync     raw queue, SyncMode.SYNC, appender.sync() every BATCH appends
 * </pre>
 *
 * <p>Prints one line: commands, flushes, time per flush and commands per second. 1,000 warm-up
 * appends and one flush come before the measured loop.
 */
public final class JournalSyncProbe
{
    private static final int WARM_UP_COUNT = 1_000;

    private JournalSyncProbe()
    {
    }

    public static void main(final String[] args)
    {
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
        final Command command = TestCommands.transfer(1, "probe-reference-0001");
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
        JournalQueues.disableAnalytics();
        final SingleChronicleQueueBuilder builder = SingleChronicleQueueBuilder.binary(dir).rollCycle(JournalQueues.ROLL_CYCLE);
        if ("chronicle-sync".equals(mode))
        {
            builder.syncMode(SyncMode.SYNC);
        }
        final byte[] record = new byte[Layout1Reader.FIXED_LENGTH + 20];
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

    private static void append(final ExcerptAppender appender, final byte[] record)
    {
        try (DocumentContext dc = appender.writingDocument())
        {
            dc.wire().bytes().write(record);
        }
    }
}
