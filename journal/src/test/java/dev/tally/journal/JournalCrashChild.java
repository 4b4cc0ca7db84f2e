package dev.tally.journal;

import java.nio.file.Path;

import dev.tally.ledger.command.Command;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.wire.DocumentContext;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A journaler process for crash tests, started by {@link JournalCrashTest} in its own JVM.
 *
 * <pre>
 * JournalCrashChild DIR ASYNC              append forever, print "ACK n" after each append returned
 * JournalCrashChild DIR SYNC               append forever, flush every 8, print "ACK n" after each flush
 * JournalCrashChild DIR HALT_MID_DOCUMENT  append 100, then halt inside an unfinished document
 * </pre>
 */
public final class JournalCrashChild
{
    static final int SYNC_BATCH_SIZE = 8;
    static final int HALT_APPEND_COUNT = 100;

    private JournalCrashChild()
    {
    }

    public static void main(final String[] args)
    {
        final Path dir = Path.of(args[0]);
        final String mode = args[1];
        if ("HALT_MID_DOCUMENT".equals(mode))
        {
            haltMidDocument(dir);
            return;
        }
        final Durability durability = Durability.valueOf(mode);
        try (Journal journal = Journal.open(dir, durability))
        {
            System.out.println("READY " + journal.lastIndex());
            final Command command = TestCommands.transfer(1, "crash-child");
            long i = 0;
            while (true)
            {
                i++;
                final long index = journal.stampAndAppend(command, System.currentTimeMillis() * 1_000_000L);
                if (Durability.ASYNC == durability)
                {
                    System.out.println("ACK " + index);
                }
                else if (i % SYNC_BATCH_SIZE == 0)
                {
                    journal.flush();
                    System.out.println("ACK " + journal.durableIndex());
                }
            }
        }
    }

    private static void haltMidDocument(final Path dir)
    {
        try (Journal journal = Journal.open(dir, Durability.SYNC))
        {
            for (int i = 1; i <= HALT_APPEND_COUNT; i++)
            {
                journal.stampAndAppend(TestCommands.transfer(i, "before-halt"), 1_000L * i);
            }
        }
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[CommandCodec.ENCODED_LENGTH_MAX]);
        final Command unfinished = TestCommands.transfer(HALT_APPEND_COUNT + 1, "unfinished");
        unfinished.journalIndex = HALT_APPEND_COUNT + 1;
        final int length = new CommandCodec().encode(unfinished, buffer, 0);
        final SingleChronicleQueue queue = JournalQueues.openForAppend(JournalConfig.of(dir, Durability.SYNC));
        final ExcerptAppender appender = queue.createAppender();
        final DocumentContext dc = appender.writingDocument();
        dc.wire().bytes().write(buffer.byteArray(), 0, length / 2);
        System.out.println("HALTING");
        System.out.flush();
        Runtime.getRuntime().halt(1);
    }
}
