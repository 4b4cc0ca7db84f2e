package dev.tally.perf.peer;

import java.util.Locale;

/**
 * How many balance rows the peer gives an account that asks for sub-balances (a hot account): the variant of
 * the peer a compare measures.
 *
 * <ul>
 *   <li>{@link #SUB_BALANCES} (the default, the source articles' design): as many rows as the account has
 *       sub-balances in Tally, so a hot merchant account of 16 sub-balances is 16 rows;</li>
 *   <li>{@code N}: every account with more than one sub-balance gets N rows; {@code 1} is the naive design, one
 *       row per account, where every transfer to a hot account queues on one row lock.</li>
 * </ul>
 * An account of one sub-balance is one row in every variant.
 *
 * @param rows 0 for {@link #SUB_BALANCES}, else the rows of every hot account (1 to {@link #ROWS_MAX}).
 */
public record HotRows(int rows)
{
    public static final int ROWS_MAX = 64;
    /** As many rows as sub-balances. */
    public static final HotRows SUB_BALANCES = new HotRows(0);
    /** One row per account. */
    public static final HotRows ONE_ROW = new HotRows(1);

    public HotRows
    {
        if (rows < 0 || rows > ROWS_MAX)
        {
            throw new IllegalArgumentException("hot rows must be 1.." + ROWS_MAX + " (or sub-balances), was " + rows);
        }
    }

    /** @param text {@code sub-balances} or a number of rows, 1 to 64. */
    public static HotRows parse(final String text)
    {
        final String value = text.trim().toLowerCase(Locale.ROOT);
        return "sub-balances".equals(value) ? SUB_BALANCES : new HotRows(Integer.parseInt(value));
    }

    /** @return the balance rows of an account of {@code subBalances} sub-balances. */
    int rowsOf(final int subBalances)
    {
        return subBalances <= 1 || rows == 0 ? subBalances : rows;
    }

    /**
     * @param hotSubBalances the sub-balances of the run's hot account.
     * @return the variant's name in RESULT lines and tables: {@code sub-rows-16}, {@code one-row}.
     */
    public String label(final int hotSubBalances)
    {
        final int hot = rowsOf(hotSubBalances);
        return hot == 1 ? "one-row" : "sub-rows-" + hot;
    }
}
