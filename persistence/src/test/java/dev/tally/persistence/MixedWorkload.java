package dev.tally.persistence;

import dev.tally.ledger.command.Command;
import dev.tally.ledger.result.Result;
import dev.tally.ledger.result.ResultCode;

import java.util.SplittableRandom;

/**
 * A deterministic run of every kind of command: plain, hot (8 sub-balances), overdraft and funding accounts;
 * transfers with references, rejections, partial and full reversals; holds captured, voided, expired and
 * marked unknown; atomic batches that commit and that fail; a non-atomic batch; two tenants using the same
 * account ids and the same reference text, whose holds expire in the same tick; a month boundary; and
 * transfers with metadata (one in each atomic batch, every {@link #METADATA_EVERY}th random one).
 */
public final class MixedWorkload
{
    /** Hot account of tenant 1, with {@link #HOT_SUBS} sub-balances. */
    public static final long HOT = 3;
    public static final int HOT_SUBS = 8;
    /** Every this many random transfers carries metadata ({@code {"i":"<its number>"}}). */
    public static final int METADATA_EVERY = 5;

    private MixedWorkload()
    {
    }

    /** Runs the script, then {@code randomTransfers} random transfers in February. */
    public static void run(final LedgerScenario s, final int randomTransfers)
    {
        s.tenant(1);
        ok(s.createAccount(1, 1, false, 0));              // funding: may go negative
        ok(s.createAccount(2, 1, true, 0));               // customer
        ok(s.createAccount(HOT, HOT_SUBS, true, 0));      // hot collection account
        ok(s.createAccount(4, 1, true, 5_000));           // overdraft of 50.00
        s.currency(LedgerScenario.EUR);
        ok(s.createAccount(5, 1, true, 0));
        s.currency(LedgerScenario.USD);

        final Result invoice = ok(s.transfer(1, 2, 100_000, "inv-1"));
        for (int i = 0; i < 40; i++)
        {
            ok(s.transfer(1, HOT, 1_000 + 37L * i, "hot-" + i));
        }
        ok(s.transfer(HOT, 2, 30_000, null));             // a debit drawing from several sub-balances
        ok(s.transfer(4, 1, 3_000, null));                // into the overdraft
        rejected(s.transfer(2, 1, 1_000_000_000_000L, null), ResultCode.INSUFFICIENT_FUNDS);
        rejected(s.transfer(1, 2, 5, "inv-1"), ResultCode.DUPLICATE_REFERENCE);
        ok(s.reverse(invoice, 1_000));
        ok(s.reverse(invoice, 0));                        // the rest

        final Result captured = ok(s.hold(2, 5_000, 60_000));
        ok(s.capture(captured, HOT, 2_000));              // partial capture, the rest released
        ok(s.voidHold(ok(s.hold(HOT, 7_000, 60_000))));
        ok(s.hold(2, 1_000, 1_000));                      // expires at the tick below
        final Result unknownThenCaptured = ok(s.hold(2, 500, 60_000));
        ok(s.markUnknown(unknownThenCaptured));
        ok(s.capture(unknownThenCaptured, 1, 0));
        ok(s.markUnknown(ok(s.hold(HOT, 100, 1_000))));   // unknown: never expires

        final Result[] committed = s.batch(true, s.transferCommand(1, 2, 10, "batch-ok-1", "{\"batch\":\"ok\"}"),
            s.transferCommand(2, HOT, 5, null), s.holdCommand(2, 3, 60_000));
        for (final Result r : committed)
        {
            ok(r);
        }
        final Result[] failed = s.batch(true, s.transferCommand(1, 2, 10, "batch-failed-1", "{\"batch\":\"failed\"}"),
            s.transferCommand(2, 1, 1_000_000_000_000L, null));
        rejected(failed[0], ResultCode.LINKED_OPERATION_FAILED);
        final Result[] mixed = s.batch(false, s.transferCommand(1, 5, 10, null), s.transferCommand(1, 2, 7, null));
        rejected(mixed[0], ResultCode.CURRENCY_MISMATCH);
        ok(mixed[1]);

        s.tenant(2);
        ok(s.createAccount(1, 1, false, 0));
        ok(s.createAccount(2, 2, true, 0));
        ok(s.transfer(1, 2, 5_000, "inv-1"));             // same reference text, another tenant: allowed
        ok(s.hold(2, 100, 1_000));
        s.tenant(1);
        ok(s.hold(2, 200, 1_000));
        final Result tick = ok(s.tick(5_000));            // expires holds of both tenants on account id 2
        if (tick.extra != 3)
        {
            throw new AssertionError("the tick should expire three holds, expired " + tick.extra);
        }

        s.advanceMs(2 * 60 * 60 * 1000L);                 // into February
        final SplittableRandom random = new SplittableRandom(42);
        final long[] accounts = {1, 2, HOT, 4};
        for (int i = 0; i < randomTransfers; i++)
        {
            final long debit = accounts[random.nextInt(accounts.length)];
            long credit = accounts[random.nextInt(accounts.length)];
            if (credit == debit)
            {
                credit = debit == 1 ? 2 : 1;
            }
            final Command c = s.transferCommand(debit, credit, 1 + random.nextInt(20_000), random.nextInt(4) == 0 ? "r-" + i : null,
                i % METADATA_EVERY == 0 ? "{\"i\":\"" + i + "\"}" : null);
            s.apply(c);
        }
        ok(s.tick(1_000));
    }

    private static Result ok(final Result r)
    {
        if (r.code != ResultCode.OK)
        {
            throw new AssertionError("expected OK: " + r);
        }
        return r;
    }

    private static void rejected(final Result r, final ResultCode code)
    {
        if (r.code != code)
        {
            throw new AssertionError("expected " + code + ": " + r);
        }
    }
}
