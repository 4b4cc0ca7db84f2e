package dev.tally.ledger.query;

/** Receives each account of a ledger in turn ({@link dev.tally.ledger.Ledger#forEachAccount}). */
@FunctionalInterface
public interface AccountVisitor
{
    /** @param account the account's state, in a view reused for the next account: copy what must outlive the call. */
    void visit(AccountView account);
}
