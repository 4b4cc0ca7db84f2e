package dev.tally.ledger;

import dev.tally.ledger.command.Command;
import dev.tally.ledger.effect.EffectLog;
import dev.tally.ledger.effect.EventType;
import dev.tally.ledger.id.Uuid7;
import dev.tally.ledger.query.TransferView;
import dev.tally.ledger.result.Result;
import dev.tally.ledger.result.ResultCode;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A transfer's metadata is opaque to the ledger's rules: it rides on the transfer's event to PostgreSQL and the
 * outbox, and memory keeps only the fact that there is some.
 */
class LedgerMetadataTest
{
    private static final long FUNDING = 1;
    private static final long ALICE = 2;
    private static final long BOB = 3;

    private final LedgerDriver d = opened();
    private final Commands cmd = d.commands;

    /** A ledger with a funding account, Alice (funded with 10,000) and Bob. */
    private static LedgerDriver opened()
    {
        final LedgerDriver driver = new LedgerDriver(LedgerDriver.CONFIG);
        final Commands commands = driver.commands;
        driver.apply(commands.createFundingAccount("open-funding", FUNDING));
        driver.apply(commands.createAccount("open-alice", ALICE));
        driver.apply(commands.createAccount("open-bob", BOB));
        driver.apply(commands.transfer("fund-alice", FUNDING, ALICE, 10_000));
        return driver;
    }

    @Test
    void shouldHandTheMetadataToTheTransfersEventAndRememberOnlyThatItHasSome()
    {
        final Result posted = d.apply(withMetadata(cmd.transfer("pay-1", ALICE, BOB, 700), "{\"orderId\":\"A-17\"}"));

        assertEquals(ResultCode.OK, posted.code);
        final EffectLog effects = d.ledger.effects();
        assertEquals(EventType.TRANSFER_POSTED, effects.eventType(0));
        assertEquals("{\"orderId\":\"A-17\"}", metadataOf(effects, 0));
        assertTrue(read(posted).hasMetadata);

        final Result plain = d.apply(cmd.transfer("pay-2", ALICE, BOB, 100));

        assertEquals(0, d.ledger.effects().eventMetadataLength(0), "a transfer without metadata hands none on");
        assertFalse(read(plain).hasMetadata);
    }

    @Test
    void shouldDropTheMetadataOfARolledBackAtomicBatchWithItsEvents()
    {
        final Command[] failing = Commands.batch(true,
            withMetadata(cmd.transfer("op-0", ALICE, BOB, 300), "{\"n\":\"0\"}"),
            cmd.transfer("op-1", ALICE, BOB, 1_000_000));
        d.applyBatch(failing);
        assertEquals(0, d.eventCount(), "nothing of the failed batch reaches PostgreSQL");

        d.applyBatch(Commands.batch(true,
            withMetadata(cmd.transfer("op-2", ALICE, BOB, 300), "{\"n\":\"2\"}"),
            cmd.transfer("op-3", ALICE, BOB, 300),
            withMetadata(cmd.transfer("op-4", ALICE, BOB, 300), "{\"n\":\"4\",\"more\":\"text\"}")));

        final EffectLog effects = d.ledger.effects();
        assertEquals(3, effects.eventCount());
        assertEquals("{\"n\":\"2\"}", metadataOf(effects, 0));
        assertEquals("", metadataOf(effects, 1));
        assertEquals("{\"n\":\"4\",\"more\":\"text\"}", metadataOf(effects, 2));
    }

    @Test
    void shouldMoveMoneyAlikeAndDigestTheTransfersMetadataBit()
    {
        final LedgerDriver other = opened();
        final Commands otherCmd = other.commands;

        d.apply(withMetadata(cmd.transfer("pay-1", ALICE, BOB, 700), "{\"a\":\"b\"}"));
        other.apply(otherCmd.transfer("pay-1", ALICE, BOB, 700));

        assertEquals(other.posted(BOB), d.posted(BOB));
        assertEquals(other.posted(ALICE), d.posted(ALICE));
        assertTrue(d.ledger.stateHash() != other.ledger.stateHash(),
            "the transfer kept in memory says it has metadata, so a replay that lost it would not match the snapshot's hash");
    }

    private TransferView read(final Result r)
    {
        return d.ledger.readTransfer(Uuid7.hi(r.originTimestampNs, Uuid7.KIND_TRANSFER), Uuid7.lo(r.originIndex, 0),
            1, new TransferView());   // the tenant Commands uses unless told otherwise
    }

    private static Command withMetadata(final Command c, final String json)
    {
        final byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        return c.metadata(bytes, bytes.length);
    }

    private static String metadataOf(final EffectLog effects, final int event)
    {
        final byte[] bytes = Arrays.copyOfRange(effects.eventMetadataBytes(), effects.eventMetadataOffset(event),
            effects.eventMetadataOffset(event) + effects.eventMetadataLength(event));
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
