package dev.tally.snapshotter;

import dev.tally.journal.CommandConsumer;
import dev.tally.journal.ReplayResult;

/** The journal as recovery reads it: {@code Journal::replay} for the server, {@code JournalReader::replay} for tools. */
@FunctionalInterface
public interface ReplaySource
{
    ReplayResult replay(long fromIndexExclusive, CommandConsumer consumer);
}
