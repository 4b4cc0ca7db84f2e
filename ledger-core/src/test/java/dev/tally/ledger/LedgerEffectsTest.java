package dev.tally.ledger;

import dev.tally.ledger.command.Command;
import dev.tally.ledger.effect.EffectLog;
import dev.tally.ledger.effect.EventType;
import dev.tally.ledger.query.AccountView;
import dev.tally.ledger.result.Result;
import dev.tally.ledger.result.ResultCode;
import dev.tally.ledger.transfer.TransferKind;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The effects of a unit say everything the read model needs, without a look at the ledger's tables: the tenant of
 * every balance, an account's rules, a transfer's reference, a reversal's original, and where the unit ends.
 */
class LedgerEffectsTest
{
    private final LedgerDriver d = new LedgerDriver();
    private final Commands cmd = d.commands;

    @Test
    void shouldNameTheTenantOfEveryBalanceEvenWhenATickSpansTenantsSharingAnAccountId()
    {
        for (final long tenant : new long[] {7, 8})
        {
            cmd.tenant(tenant);
            d.apply(cmd.createFundingAccount("fund-" + tenant, 1));
            d.apply(cmd.createHotAccount("hot-" + tenant, 2, 4));
            d.apply(cmd.transfer("pay-" + tenant, 1, 2, 1_000 * tenant));
            d.apply(cmd.hold("hold-" + tenant, 2, 100, 10));
        }

        d.apply(cmd.tick(1_000));

        final EffectLog effects = d.ledger.effects();
        assertEquals(2, effects.eventCount(), "a hold of each tenant expired");
        final List<String> tenants = new ArrayList<>();
        final AccountView account = new AccountView();
        for (int i = 0; i < effects.balanceCount(); i++)
        {
            d.ledger.readAccount(effects.balanceAccount(i), effects.balanceTenant(i), account);
            assertEquals(effects.balancePosted(i), account.postedMinor[effects.balanceSub(i)], "posted of the named tenant's account");
            assertEquals(effects.balanceHeld(i), account.heldMinor[effects.balanceSub(i)], "held of the named tenant's account");
            tenants.add(effects.balanceTenant(i) + "/" + effects.balanceAccount(i));
        }
        assertTrue(tenants.contains("7/2") && tenants.contains("8/2"), tenants.toString());
    }

    @Test
    void shouldGiveEveryEntryItsTransfersKindAndItsAccountsPostedTotalRightAfterIt()
    {
        d.apply(cmd.createFundingAccount("open-1", 1));
        d.apply(cmd.createHotAccount("open-2", 2, 4));   // credits spread over 4 sub-balances: the total is their sum
        d.apply(cmd.createAccount("open-3", 3));
        final Result first = d.apply(cmd.transfer("pay-1", 1, 2, 700));
        assertEntries(TransferKind.TRANSFER, -700, 700);
        d.apply(cmd.transfer("pay-2", 1, 2, 300));
        assertEntries(TransferKind.TRANSFER, -1_000, 1_000);
        assertEquals(ResultCode.OK, d.apply(cmd.reverse("undo-1", first, 200)).code);
        assertEntries(TransferKind.REVERSAL, 800, -800);   // the reversal debits 2 and credits 1
        final Result hold = d.apply(cmd.hold("hold-1", 2, 500, 10_000));
        assertEquals(0, d.ledger.effects().entryCount(), "a hold moves no posted money");
        assertEquals(ResultCode.OK, d.apply(cmd.capture("take-1", hold, 3, 120)).code);
        assertEntries(TransferKind.CAPTURE, 680, 120);
    }

    /** The unit's two legs: kind, and each account's posted total after it, which is also memory's total now. */
    private void assertEntries(final int kind, final long debitAfterMinor, final long creditAfterMinor)
    {
        final EffectLog effects = d.ledger.effects();
        assertEquals(2, effects.entryCount());
        final AccountView account = new AccountView();
        final long[] expected = {debitAfterMinor, creditAfterMinor};
        for (int i = 0; i < 2; i++)
        {
            assertEquals(kind, effects.entryKind(i));
            assertEquals(expected[i], effects.entryBalanceAfter(i), "balance after leg " + i);
            d.ledger.readAccount(effects.entryAccount(i), effects.entryTenant(i), account);
            long posted = 0;
            for (int sub = 0; sub < account.subBalances; sub++)
            {
                posted += account.postedMinor[sub];
            }
            assertEquals(posted, effects.entryBalanceAfter(i), "the sum of the account's sub-balances");
        }
    }

    @Test
    void shouldCarryAnAccountsRulesOnItsCreationEvent()
    {
        d.apply(cmd.createAccount("open-1", 1, Commands.USD, 1, true, 2_500));
        assertAccountRules(true, 2_500);
        assertEquals(1, d.ledger.effects().balanceCount());
        assertEquals(1, d.ledger.effects().balanceTenant(0));

        d.apply(cmd.createFundingAccount("open-2", 2));
        assertAccountRules(false, 0);
    }

    private void assertAccountRules(final boolean constrained, final long overdraftLimitMinor)
    {
        final EffectLog effects = d.ledger.effects();
        assertEquals(EventType.ACCOUNT_CREATED, effects.eventType(0));
        assertEquals(constrained, effects.eventDebitsMustNotExceedCredits(0));
        assertEquals(overdraftLimitMinor, effects.eventOverdraftLimitMinor(0));
    }

    @Test
    void shouldCarryATransfersReferenceAndAReversalsOriginal()
    {
        d.apply(cmd.createFundingAccount("open-1", 1));
        d.apply(cmd.createAccount("open-2", 2));

        final Result posted = d.apply(cmd.transfer("pay-1", 1, 2, 500, "inv-45982"));
        EffectLog effects = d.ledger.effects();
        assertEquals(EventType.TRANSFER_POSTED, effects.eventType(0));
        assertEquals("inv-45982", referenceOf(effects, 0));
        assertEquals(0, effects.eventExtraTimestampNs(0));

        d.apply(cmd.transfer("pay-2", 1, 2, 500));
        assertEquals("", referenceOf(d.ledger.effects(), 0), "a transfer without a reference carries none");

        final Result reversed = d.apply(cmd.reverse("undo-1", posted, 200));
        assertEquals(ResultCode.OK, reversed.code);
        effects = d.ledger.effects();
        assertEquals(EventType.TRANSFER_REVERSED, effects.eventType(0));
        assertEquals(posted.originIndex, effects.eventExtra(0));
        assertEquals(posted.originTimestampNs, effects.eventExtraTimestampNs(0));
        assertEquals("", referenceOf(effects, 0));
    }

    @Test
    void shouldEndAUnitAtItsLastCommandAndKeepOnlyTheKeptEventsOfAnAtomicBatch()
    {
        d.apply(cmd.createFundingAccount("open-1", 1));
        d.apply(cmd.createAccount("open-2", 2));
        final Command[] batch = Commands.batch(true,
            cmd.transfer("op-0", 1, 2, 300, "ref-0"),
            cmd.transfer("op-1", 1, 2, 300),
            cmd.transfer("op-2", 1, 2, 300, "ref-2"));

        d.applyBatch(batch);

        final EffectLog effects = d.ledger.effects();
        assertEquals(batch[2].journalIndex, effects.lastJournalIndex());
        assertEquals(batch[2].timestampNs, effects.lastTimestampNs());
        assertEquals(List.of("ref-0", "", "ref-2"), List.of(referenceOf(effects, 0), referenceOf(effects, 1), referenceOf(effects, 2)));

        final Command[] failing = Commands.batch(true, cmd.transfer("op-3", 1, 2, 1, "ref-3"), cmd.transfer("op-4", 2, 1, 1_000_000));
        d.applyBatch(failing);
        assertEquals(0, d.ledger.effects().eventCount(), "a rolled-back batch hands nothing on");
        assertEquals(failing[1].journalIndex, d.ledger.effects().lastJournalIndex(), "its unit still ends at its last command");
    }

    private static String referenceOf(final EffectLog effects, final int event)
    {
        return new String(effects.eventReferenceBytes(), effects.eventReferenceOffset(event), effects.eventReferenceLength(event),
            StandardCharsets.US_ASCII);
    }
}
