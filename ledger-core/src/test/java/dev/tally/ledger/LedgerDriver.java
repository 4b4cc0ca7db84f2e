package dev.tally.ledger;

import dev.tally.ledger.account.Accounts;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.image.StateImage;
import dev.tally.ledger.result.Result;

import java.util.ArrayList;
import java.util.List;

/**
 * A real {@link Ledger} with a {@link Commands} builder, for scenario tests: it copies every result out
 * (the ledger reuses its result holders) and reads balances by account id.
 */
final class LedgerDriver
{
    /** Tables big enough for any scenario, small enough to build in a millisecond. */
    static final LedgerConfig CONFIG = new LedgerConfig(
        1_000, 20_000, 20_000, 20_000, 20_000, 2_000, LedgerConfig.DAY_MS, 7 * LedgerConfig.DAY_MS, 7 * LedgerConfig.DAY_MS, 1_000);

    final Commands commands = new Commands();
    final Ledger ledger;
    private final LedgerConfig config;
    /** Every command applied through this driver, in order: its journal. */
    private final List<Command> applied = new ArrayList<>();

    LedgerDriver()
    {
        this(CONFIG);
    }

    LedgerDriver(final LedgerConfig config)
    {
        this.config = config;
        ledger = new Ledger(config);
    }

    /** @return a ledger restored from a snapshot image of this one, as a restart finds it. */
    Ledger restoredCopy()
    {
        final StateImage image = new StateImage();
        ledger.copyTo(image);
        return Ledger.restore(config, image);
    }

    /** @return a fresh ledger that applied every command this driver applied, in order, as a replay of its journal does. */
    Ledger replayed()
    {
        return replayOf(applied);
    }

    /** @return a fresh ledger of this one's configuration that applied {@code journal}, in order, as a replay does. */
    Ledger replayOf(final Iterable<Command> journal)
    {
        final Ledger replayed = new Ledger(config);
        for (final Command c : journal)
        {
            replayed.apply(c);
        }
        return replayed;
    }

    /** Applies one command; @return a copy of its result. */
    Result apply(final Command c)
    {
        applied.add(c);
        return new Result().copyFrom(ledger.apply(c));
    }

    /** Applies every operation of a batch; @return copies of their results once the batch is complete. */
    Result[] applyBatch(final Command... operations)
    {
        for (final Command c : operations)
        {
            applied.add(c);
            ledger.apply(c);
        }
        final Result[] results = new Result[operations.length];
        for (int i = 0; i < operations.length; i++)
        {
            results[i] = new Result().copyFrom(ledger.result(i));
        }
        return results;
    }

    private int slot(final long accountId)
    {
        final int slot = slotOfAnyTenant(ledger.accounts(), accountId);
        if (slot < 0)
        {
            throw new AssertionError("no account " + accountId);
        }
        return slot;
    }

    /**
     * Scenario tests name accounts by id alone; ids are unique per tenant, so this scans for the one
     * account with that id and fails when two tenants use it (then a test must name the tenant).
     */
    static int slotOfAnyTenant(final Accounts accounts, final long accountId)
    {
        int found = -1;
        for (int slot = 0; slot < accounts.count(); slot++)
        {
            if (accounts.id(slot) == accountId)
            {
                if (found >= 0)
                {
                    throw new AssertionError("account id " + accountId + " is used by two tenants: name the tenant");
                }
                found = slot;
            }
        }
        return found;
    }

    long posted(final long accountId)
    {
        return ledger.accounts().postedTotal(slot(accountId));
    }

    long held(final long accountId)
    {
        return ledger.accounts().heldTotal(slot(accountId));
    }

    long available(final long accountId)
    {
        return posted(accountId) - held(accountId);
    }

    /** @return posted of sub-balance {@code i} of the account. */
    long subPosted(final long accountId, final int i)
    {
        final Accounts accounts = ledger.accounts();
        return accounts.posted(accounts.subSlot(slot(accountId), i));
    }

    /** @return held of sub-balance {@code i} of the account. */
    long subHeld(final long accountId, final int i)
    {
        final Accounts accounts = ledger.accounts();
        return accounts.held(accounts.subSlot(slot(accountId), i));
    }

    boolean exists(final long accountId)
    {
        return slotOfAnyTenant(ledger.accounts(), accountId) >= 0;
    }

    /**
     * @return a digest of balances, holds, references and transfers: {@link Ledger#stateHash()} without
     * the journal position and the stored keys, for "nothing changed" checks across commands.
     */
    long businessDigest()
    {
        final StateDigest digest = new StateDigest();
        ledger.accounts().digest(digest);
        ledger.holds().digest(digest);
        ledger.references().digest(digest);
        ledger.transfers().digest(digest);
        return digest.value();
    }

    /** @return a digest of the stored idempotency keys and their results. */
    long keysDigest()
    {
        final StateDigest digest = new StateDigest();
        ledger.idempotencyKeys().digest(digest);
        return digest.value();
    }

    /** @return entries in the last unit's effects. */
    int entryCount()
    {
        return ledger.effects().entryCount();
    }

    /** @return events in the last unit's effects. */
    int eventCount()
    {
        return ledger.effects().eventCount();
    }
}
