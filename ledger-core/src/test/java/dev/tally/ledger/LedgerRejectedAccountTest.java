package dev.tally.ledger;

import dev.tally.ledger.command.Command;
import dev.tally.ledger.currency.CurrencyCode;
import dev.tally.ledger.image.StateImage;
import dev.tally.ledger.query.AccountView;
import dev.tally.ledger.result.Result;
import dev.tally.ledger.result.ResultCode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the API's ergonomics need from the ledger: a transfer's {@code account-not-found} and {@code currency-mismatch}
 * record which account (in {@code extra}), deterministically and only for commands journaled under that rule, and an
 * account keeps its creation time, through a snapshot image.
 */
class LedgerRejectedAccountTest
{
    private static final long FUNDING = 1;
    private static final long ALICE = 2;
    private static final long EUROS = 3;
    private static final long MISSING = 99;
    private static final int EUR = CurrencyCode.pack("EUR");

    private final LedgerDriver d = new LedgerDriver();
    private final Commands cmd = d.commands;

    @BeforeEach
    void openAccountsInTwoCurrencies()
    {
        for (final Command open : new Command[] {cmd.createFundingAccount("open-funding", FUNDING), cmd.createAccount("open-alice", ALICE),
            cmd.createAccount("open-euros", EUROS, EUR, 1, true, 0)})
        {
            assertEquals(ResultCode.OK, d.apply(open).code);
        }
    }

    @Test
    void shouldRecordWhichAccountOfATransferIsMissing()
    {
        assertRejected(d.apply(cmd.transfer("to-missing", FUNDING, MISSING, 100)), ResultCode.ACCOUNT_NOT_FOUND, MISSING);
        assertRejected(d.apply(cmd.transfer("from-missing", MISSING, ALICE, 100)), ResultCode.ACCOUNT_NOT_FOUND, MISSING);
        assertRejected(d.apply(cmd.transfer("both-missing", MISSING, MISSING + 1, 100)), ResultCode.ACCOUNT_NOT_FOUND, MISSING);
    }

    @Test
    void shouldRecordWhichAccountOfATransferIsInAnotherCurrency()
    {
        assertRejected(d.apply(cmd.transfer("to-euros", FUNDING, EUROS, 100)), ResultCode.CURRENCY_MISMATCH, EUROS);
        assertRejected(d.apply(cmd.transfer("from-euros", EUROS, ALICE, 100)), ResultCode.CURRENCY_MISMATCH, EUROS);
        assertRejected(d.apply(cmd.transfer("in-euros", FUNDING, ALICE, 100, EUR, null)), ResultCode.CURRENCY_MISMATCH, FUNDING);
    }

    @Test
    void shouldReplayTheStoredRejectionWithItsAccountWhateverExistsNow()
    {
        final Command first = cmd.transfer("to-missing", FUNDING, MISSING, 100);
        assertRejected(d.apply(first), ResultCode.ACCOUNT_NOT_FOUND, MISSING);
        d.apply(cmd.createAccount("open-missing", MISSING));
        final Result retried = d.apply(cmd.resend(first));
        assertTrue(retried.replayed);
        assertRejected(retried, ResultCode.ACCOUNT_NOT_FOUND, MISSING);
    }

    @Test
    void shouldKeepTheOutcomeOfATransferJournaledBeforeTheRuleNamingNoAccount()
    {
        final Command old = cmd.transfer("old-missing", FUNDING, MISSING, 100);
        old.rejectionNamesAccount = false;
        assertRejected(d.apply(old), ResultCode.ACCOUNT_NOT_FOUND, 0);
        final Command oldEuros = cmd.transfer("old-euros", FUNDING, EUROS, 100);
        oldEuros.rejectionNamesAccount = false;
        assertRejected(d.apply(oldEuros), ResultCode.CURRENCY_MISMATCH, 0);

        // a retry journaled now replays the stored outcome: the key answered before keeps its value
        final Result retried = d.apply(cmd.resend(old));
        assertTrue(retried.replayed);
        assertRejected(retried, ResultCode.ACCOUNT_NOT_FOUND, 0);
    }

    @Test
    void shouldKeepTheCreationTimeOfEveryAccountThroughAnImage()
    {
        final Command hot = cmd.createHotAccount("open-hot", 4, 3);
        d.apply(hot);
        final AccountView view = d.ledger.readAccount(4, hot.tenantId, new AccountView());
        assertTrue(hot.timestampNs > 0);
        assertEquals(hot.timestampNs, view.createdNs);

        final StateImage image = new StateImage();
        d.ledger.copyTo(image);
        final Ledger restored = Ledger.restore(LedgerDriver.CONFIG, image);
        assertEquals(d.ledger.stateHash(), restored.stateHash());
        assertEquals(hot.timestampNs, restored.readAccount(4, hot.tenantId, new AccountView()).createdNs);
    }

    private static void assertRejected(final Result r, final ResultCode code, final long accountNamed)
    {
        assertEquals(code, r.code, r::toString);
        assertEquals(accountNamed, r.extra, r::toString);
    }
}
