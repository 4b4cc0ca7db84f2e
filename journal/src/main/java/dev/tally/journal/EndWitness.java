package dev.tally.journal;

import java.util.Objects;

/**
 * Something outside the journal that proves how far the journal got: it holds a journal index only once the journal held
 * that index on stable storage. The newest snapshot is one (it is written only once its {@code SNAPSHOT} command is
 * forced), PostgreSQL's watermark another (its writer takes only forced units). A journal that ends below a witness has
 * lost records it once held on disk: damage, not a torn write, whatever the records after the end look like.
 *
 * @param journalIndex the highest journal index the witness holds; 0 when it holds none.
 * @param source       what the witness is, in words an operator can act on ("the snapshot file …", "PostgreSQL's
 *                     watermark").
 */
public record EndWitness(long journalIndex, String source)
{
    /** No witness: nothing outside the journal holds any index. */
    public static final EndWitness NONE = new EndWitness(0, "no witness");

    public EndWitness
    {
        Objects.requireNonNull(source, "source");
        if (journalIndex < 0)
        {
            throw new IllegalArgumentException("journalIndex must be >= 0: " + journalIndex);
        }
    }

    /** @return the witness holding the higher index ({@code this} on a tie). */
    public EndWitness higher(final EndWitness other)
    {
        return other.journalIndex > journalIndex ? other : this;
    }

    /** @return true when the witness holds an index past {@code lastIndex}. */
    public boolean isBeyond(final long lastIndex)
    {
        return journalIndex > lastIndex;
    }

    /**
     * @return why a journal that ends at {@code lastIndex} cannot be served, naming the gap and the way out; for
     *         {@link JournalCorruptedException} and the replay's detail.
     */
    public String gapBefore(final long lastIndex)
    {
        return source + " holds journal index " + journalIndex + " but the journal can be read only up to index " + lastIndex +
            ": commands " + (lastIndex + 1) + ".." + journalIndex + " were on stable storage and are no longer readable (damage, " +
            "not a torn write; or a journal restored from an older copy, or a witness of another journal). Serving would " +
            "answer with less than was acknowledged. Restore the journal's cycle files from a copy (docs/OPERATIONS.md, " +
            "\"A damaged journal\"); `tally replay --data-dir <dir>` shows how far it reads";
    }
}
