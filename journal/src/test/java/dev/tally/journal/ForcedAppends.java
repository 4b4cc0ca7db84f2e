package dev.tally.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import dev.tally.ledger.command.Command;

/**
 * Appends with a force every {@link #RECORDS_PER_FORCE} records, as the journaler does under load, and checks that they
 * all read back: what the tests of the journal's page handling ({@link WrittenPageUnmapperTest},
 * {@link ForcedPageDropperTest}) share.
 */
final class ForcedAppends
{
    static final int RECORDS_PER_FORCE = 100;
    private static final long CLOCK_START_NS = 1_767_225_600_000_000_000L;

    private ForcedAppends()
    {
    }

    /** A sync journal in {@code directory} with 1 MiB chunks (Chronicle's smallest), so that appends cross chunks soon. */
    static JournalConfig smallChunks(final Path directory, final boolean unmapWrittenPages, final boolean dropForcedPages)
    {
        return new JournalConfig(directory, Durability.SYNC, JournalConfig.TAIL_SCAN_RECORD_COUNT_DEFAULT,
            JournalConfig.BLOCK_SIZE_BYTES_MIN, false, JournalConfig.ZERO_FILL_AHEAD_BYTES_DEFAULT,
            JournalConfig.ASYNC_FORCE_INTERVAL_MS_DEFAULT, unmapWrittenPages, dropForcedPages);
    }

    /** Appends {@link #RECORDS_PER_FORCE} records per force until {@code bytes} are appended, and keeps a copy of each. */
    static void appendAndForceUntil(final Journal journal, final long bytes, final List<Command> appended)
    {
        long seed = 0;
        while (journal.appendPosition() < bytes)
        {
            for (int r = 0; r < RECORDS_PER_FORCE; r++, seed++)
            {
                final Command command = TestCommands.mixed(seed);
                journal.stampAndAppend(command, CLOCK_START_NS + seed);
                appended.add(new Command().copyFrom(command));
            }
            journal.endOfBatch();
        }
    }

    /** Replays {@code journal} from its start and checks that it holds exactly {@code appended}, in order. */
    static void assertReplaysAll(final Journal journal, final List<Command> appended)
    {
        final List<Command> replayed = new ArrayList<>();
        final ReplayResult result = journal.replay(0, command -> replayed.add(new Command().copyFrom(command)));
        assertEquals(ReplayStatus.COMPLETE, result.status());
        assertEquals(appended.size(), replayed.size());
        for (int i = 0; i < appended.size(); i++)
        {
            TestCommands.assertSameCommand(appended.get(i), replayed.get(i));
        }
    }
}
