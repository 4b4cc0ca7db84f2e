/**
 * The journal: Tally's source of truth on Chronicle Queue.
 *
 * <ul>
 *   <li>{@link dev.tally.journal.Journal}: stamp (gap-free index, monotonic time), append, group-commit
 *   flush, tail recovery on open.</li>
 *   <li>{@link dev.tally.journal.JournalReader}: checked, in-order replay from an index.</li>
 *   <li>{@link dev.tally.journal.CommandCodec}: the versioned, checksummed binary record of a command (layout 2 written
 *   and read by {@code Layout2Codec}, layout 1 read by {@code Layout1Reader}).</li>
 *   <li>{@link dev.tally.journal.Durability}: what an append promises.</li>
 * </ul>
 *
 * <p>Design notes, measurements and the strace evidence for {@code SYNC} are in docs/JOURNAL.md.
 */
package dev.tally.journal;
