package dev.tally.ledger;

import dev.tally.ledger.command.Command;
import dev.tally.ledger.effect.EffectLog;
import dev.tally.ledger.effect.EventType;
import dev.tally.ledger.query.AccountView;
import dev.tally.ledger.result.Result;
import dev.tally.ledger.result.ResultCode;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import static dev.tally.ledger.ResultAssertions.assertReplayOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An account's metadata, set at creation or replaced by a journaled update: the ledger keeps only that the account has
 * some and hands the bytes on with the account's event; an update is refused on a closed or unknown account, stored and
 * replayed like any other outcome, rolled back with its atomic batch, and a replay or a snapshot rebuilds the same state.
 */
class LedgerAccountMetadataTest
{
    private static final long ALICE = 2;
    private static final long BOB = 3;
    private static final long OTHER_TENANT = 77;
    private static final String TEAM_OPS = "{\"team\":\"ops\"}";
    private static final String TEAM_RISK = "{\"region\":\"eu\",\"team\":\"risk\"}";

    private final LedgerDriver d = new LedgerDriver();
    private final Commands cmd = d.commands;

    private boolean hasMetadata(final Ledger ledger, final long accountId)
    {
        return ledger.readAccount(accountId, 1, new AccountView()).hasMetadata;
    }

    @Test
    void shouldHandTheCreationsMetadataToItsEventAndRememberOnlyThatItHasSome()
    {
        final Result created = d.apply(cmd.createAccountWithMetadata("open-alice", ALICE, TEAM_OPS));

        assertEquals(ResultCode.OK, created.code);
        assertEquals(EventType.ACCOUNT_CREATED, d.ledger.effects().eventType(0));
        assertEquals(TEAM_OPS, metadataOf(d.ledger.effects(), 0));
        assertTrue(hasMetadata(d.ledger, ALICE));

        d.apply(cmd.createAccount("open-bob", BOB));

        assertEquals(0, d.ledger.effects().eventMetadataLength(0), "an account created without metadata hands none on");
        assertFalse(hasMetadata(d.ledger, BOB));
    }

    @Test
    void shouldReplaceTheMetadataAndRemoveItWithAnUpdateWithoutAny()
    {
        d.apply(cmd.createAccount("open-alice", ALICE));

        final Result updated = d.apply(cmd.updateMetadata("label", ALICE, TEAM_RISK));

        assertEquals(ResultCode.OK, updated.code);
        assertEquals(ALICE, updated.accountA);
        assertEquals(d.commands.nowNs(), updated.originTimestampNs);
        assertTrue(hasMetadata(d.ledger, ALICE));
        final EffectLog effects = d.ledger.effects();
        assertEquals(1, effects.eventCount());
        assertEquals(EventType.ACCOUNT_METADATA_UPDATED, effects.eventType(0));
        assertEquals(TEAM_RISK, metadataOf(effects, 0));

        assertEquals(ResultCode.OK, d.apply(cmd.updateMetadata("unlabel", ALICE, null)).code);

        assertFalse(hasMetadata(d.ledger, ALICE));
        assertEquals(EventType.ACCOUNT_METADATA_UPDATED, d.ledger.effects().eventType(0), "the removal is told too");
        assertEquals(0, d.ledger.effects().eventMetadataLength(0));
        assertEquals(0, d.posted(ALICE), "metadata moves no money");
    }

    @Test
    void shouldRefuseTheUpdateOfAClosedAccountAndTakeItOnAFrozenOne()
    {
        d.apply(cmd.createAccountWithMetadata("open-alice", ALICE, TEAM_OPS));
        d.apply(cmd.createAccount("open-bob", BOB));
        d.apply(cmd.close("close-alice", ALICE));

        final Result refused = d.apply(cmd.updateMetadata("label-alice", ALICE, TEAM_RISK));

        assertEquals(ResultCode.ACCOUNT_CLOSED, refused.code);
        assertEquals(ALICE, refused.extra, "the rejection names the closed account");
        assertEquals(0, d.eventCount());
        assertTrue(hasMetadata(d.ledger, ALICE), "unchanged");

        d.apply(cmd.freeze("freeze-bob", BOB, true));
        assertEquals(ResultCode.OK, d.apply(cmd.updateMetadata("label-bob", BOB, TEAM_RISK)).code, "a freeze stops money, not labels");
        assertTrue(hasMetadata(d.ledger, BOB));
    }

    @Test
    void shouldNotFindAnUnknownOrAnotherTenantsAccount()
    {
        d.apply(cmd.createAccount("open-alice", ALICE));

        assertEquals(ResultCode.ACCOUNT_NOT_FOUND, d.apply(cmd.updateMetadata("label-bob", BOB, TEAM_OPS)).code);
        cmd.tenant(OTHER_TENANT);
        final Result other = d.apply(cmd.updateMetadata("label-alice", ALICE, TEAM_OPS));
        cmd.tenant(1);

        assertEquals(ResultCode.ACCOUNT_NOT_FOUND, other.code);
        assertEquals(ALICE, other.accountA, "the rejection names the account the request named");
        assertEquals(0, d.eventCount());
        assertFalse(hasMetadata(d.ledger, ALICE));
    }

    @Test
    void shouldReplayTheStoredOutcomeAndRefuseTheKeyWithOtherMetadata()
    {
        d.apply(cmd.createAccount("open-alice", ALICE));
        final Command update = cmd.updateMetadata("label", ALICE, TEAM_OPS);
        final Result first = d.apply(update);

        assertReplayOf(first, d.apply(cmd.resend(update)));
        assertEquals(0, d.eventCount(), "a replay has no effect");
        assertEquals(ResultCode.KEY_REUSED, d.apply(cmd.updateMetadata("label", ALICE, TEAM_RISK)).code, "other metadata, same key");
        assertEquals(0, d.eventCount());
        assertEquals(ResultCode.KEY_REUSED, d.apply(cmd.updateMetadata("label", ALICE, null)).code, "no metadata, same key");
    }

    @Test
    void shouldRollBackTheUpdateWithItsAtomicBatch()
    {
        d.apply(cmd.createAccount("open-alice", ALICE));
        d.apply(cmd.createAccountWithMetadata("open-bob", BOB, TEAM_OPS));
        final long business = d.businessDigest();

        final Result[] results = d.applyBatch(Commands.batch(true,
            cmd.updateMetadata("op-0", ALICE, TEAM_RISK),
            cmd.updateMetadata("op-1", BOB, null),
            cmd.transfer("op-2", ALICE, BOB, 5)));

        assertEquals(ResultCode.LINKED_OPERATION_FAILED, results[0].code);
        assertEquals(ResultCode.LINKED_OPERATION_FAILED, results[1].code);
        assertEquals(ResultCode.INSUFFICIENT_FUNDS, results[2].code);
        assertFalse(hasMetadata(d.ledger, ALICE));
        assertTrue(hasMetadata(d.ledger, BOB));
        assertEquals(0, d.eventCount(), "nothing of the failed batch reaches PostgreSQL");
        assertEquals(business, d.businessDigest());
    }

    @Test
    void shouldRefuseALengthPastItsArrayAsInvalid()
    {
        d.apply(cmd.createAccount("open-alice", ALICE));
        final Command broken = cmd.updateMetadata("label", ALICE, TEAM_OPS);
        broken.metadataLength = LedgerLimits.METADATA_LENGTH_MAX + 1;

        assertEquals(ResultCode.INVALID_COMMAND, d.apply(broken).code);
        assertFalse(hasMetadata(d.ledger, ALICE));
    }

    @Test
    void shouldRebuildTheSameStateFromTheJournalAndFromASnapshot()
    {
        d.apply(cmd.createAccountWithMetadata("open-alice", ALICE, TEAM_OPS));
        d.apply(cmd.createAccount("open-bob", BOB));
        final long withoutUpdate = d.ledger.stateHash();
        d.apply(cmd.updateMetadata("label-bob", BOB, TEAM_RISK));
        d.apply(cmd.updateMetadata("unlabel-alice", ALICE, null));
        assertNotEquals(withoutUpdate, d.ledger.stateHash(), "which accounts have metadata is state");

        final Ledger restored = d.restoredCopy();
        final Ledger replayed = d.replayed();

        assertEquals(d.ledger.stateHash(), replayed.stateHash());
        assertEquals(d.ledger.stateHash(), restored.stateHash());
        for (final Ledger ledger : List.of(replayed, restored))
        {
            assertFalse(hasMetadata(ledger, ALICE));
            assertTrue(hasMetadata(ledger, BOB));
        }
    }

    private static String metadataOf(final EffectLog effects, final int event)
    {
        final byte[] bytes = Arrays.copyOfRange(effects.eventMetadataBytes(), effects.eventMetadataOffset(event),
            effects.eventMetadataOffset(event) + effects.eventMetadataLength(event));
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
