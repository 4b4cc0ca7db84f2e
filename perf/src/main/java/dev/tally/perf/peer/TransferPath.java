package dev.tally.perf.peer;

import java.util.Locale;

/** How the peer runs a transfer's one transaction. */
enum TransferPath
{
    /**
     * {@code SELECT * FROM peer_transfer(...)} in autocommit mode: the whole transaction (claim, rows,
     * guarded debit, credit, stored response, COMMIT) is one statement and one round trip.
     */
    FUNCTION,
    /**
     * The same steps as plain prepared statements in one JDBC transaction: claim, rows, first update,
     * second update, COMMIT (five round trips on the happy path).
     */
    STATEMENTS;

    static TransferPath parse(final String name)
    {
        return valueOf(name.trim().toUpperCase(Locale.ROOT));
    }

    String cliName()
    {
        return name().toLowerCase(Locale.ROOT);
    }
}
