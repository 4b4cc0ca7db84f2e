package dev.tally.ledger.query;

/** Receives each live hold of a ledger in turn ({@link dev.tally.ledger.Ledger#forEachLiveHold}). */
@FunctionalInterface
public interface HoldVisitor
{
    /** @param hold the hold's state, in a view reused for the next hold: copy what must outlive the call. */
    void visit(HoldView hold);
}
