package dev.tally.pipeline;

import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A slot is reused lap after lap: whatever it carried before, a reset leaves only the new publication. */
class LedgerEventTest
{
    @Test
    void resetFromACommandCopiesItAndClearsEverythingElse()
    {
        final LedgerEvent slot = used(EventKind.READ_TRANSFER);
        final Command source = new Command().reset(CommandType.TRANSFER);
        source.tenantId = 7;
        source.debitAccountId = 1;
        source.creditAccountId = 2;
        source.amountMinor = 100;
        source.referenceLength = 2;
        source.reference[0] = 'a';
        source.reference[1] = 'b';

        slot.reset(source);

        assertEquals(EventKind.COMMAND, slot.kind);
        assertEquals(CommandType.TRANSFER, slot.command.type);
        assertEquals(7, slot.command.tenantId);
        assertEquals(1, slot.command.debitAccountId);
        assertEquals(100, slot.command.amountMinor);
        assertEquals(0, slot.command.targetIdHi, "the previous read's target is gone");
        assertEquals('b', slot.command.reference[1]);
        assertEnvelopeCleared(slot);
    }

    @Test
    void resetToAKindClearsTheCommand()
    {
        final LedgerEvent slot = used(EventKind.COMMAND);

        slot.reset(EventKind.READ_ACCOUNT);

        assertEquals(EventKind.READ_ACCOUNT, slot.kind);
        assertNull(slot.command.type);
        assertEquals(0, slot.command.tenantId);
        assertEquals(0, slot.command.targetIdHi);
        assertEnvelopeCleared(slot);
    }

    private static LedgerEvent used(final EventKind kind)
    {
        final LedgerEvent slot = new LedgerEvent().reset(kind);
        slot.command.type = CommandType.CREATE_HOLD;
        slot.command.tenantId = 9;
        slot.command.targetIdHi = 5;
        slot.readAccountId = 3;
        slot.replyTo = new ReplyTarget() { };
        slot.keepAlive = false;
        slot.journalFailed = true;
        slot.immediateReply = new ImmediateReply() { };
        slot.routeIndex = 4;
        slot.receivedNs = 5;
        return slot;
    }

    private static void assertEnvelopeCleared(final LedgerEvent slot)
    {
        assertEquals(0, slot.readAccountId);
        assertNull(slot.replyTo);
        assertTrue(slot.keepAlive);
        assertFalse(slot.journalFailed);
        assertNull(slot.immediateReply);
        assertEquals(-1, slot.routeIndex);
        assertEquals(0, slot.receivedNs);
    }
}
