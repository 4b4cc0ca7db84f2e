package dev.tally.ledger;

import dev.tally.ledger.command.Command;
import dev.tally.ledger.result.Result;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link Ledger#prefetch} only warms the cache: a ledger the business thread prefetches into, commands ahead,
 * ends every command with the same result and state hash as one it never prefetches into.
 */
class LedgerPrefetchTest
{
    @Test
    void shouldChangeNothingWhateverItIsCalledWith()
    {
        final Commands cmd = new Commands();
        final List<Command> commands = new ArrayList<>();
        commands.add(cmd.createFundingAccount("f", 1));
        for (long id = 2; id <= 6; id++)
        {
            commands.add(cmd.createAccount("a" + id, id));
        }
        final List<Command> transfers = new ArrayList<>();
        for (int i = 0; i < 40; i++)
        {
            // funding, transfers between customers (some refused for funds), a replay and an unknown account
            final Command c = i < 5 ? cmd.transfer("fund" + i, 1, 2 + i, 10_000) :
                cmd.transfer("t" + i, 2 + i % 5, 2 + (i + 1) % 5, 1_500 * (i % 7));
            transfers.add(c);
            commands.add(c);
            if (i % 9 == 8)
            {
                commands.add(cmd.resend(transfers.get(i / 2)));
                commands.add(cmd.transfer("nobody" + i, 99, 2, 100));
            }
        }
        commands.add(cmd.tick(1_000));

        final LedgerDriver plain = new LedgerDriver();
        final LedgerDriver prefetched = new LedgerDriver();
        for (int i = 0; i < commands.size(); i++)
        {
            final long before = prefetched.ledger.stateHash();
            for (int ahead = i; ahead < Math.min(i + 8, commands.size()); ahead++)
            {
                prefetched.ledger.prefetch(commands.get(ahead)); // ahead of its accounts and keys existing, too
            }
            assertEquals(before, prefetched.ledger.stateHash(), "prefetch changed the state at command " + i);

            final Result expected = plain.apply(commands.get(i));
            final Result actual = prefetched.apply(commands.get(i));
            assertEquals(expected.toString(), actual.toString(), "result of command " + i);
            assertEquals(plain.ledger.stateHash(), prefetched.ledger.stateHash(), "state after command " + i);
        }
    }
}
