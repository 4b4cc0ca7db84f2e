package dev.tally.server.cli;

import dev.tally.ledger.Ledger;
import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.StateDigest;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.currency.CurrencyCode;
import dev.tally.ledger.query.AccountView;
import dev.tally.ledger.result.Result;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import picocli.CommandLine;

/**
 * {@code tally demo}: runs the source articles' failure scenarios on the in-memory ledger and prints
 * each result and the final state hash. No server, no files: a quick look at the core's behaviour.
 */
@CommandLine.Command(name = "demo", mixinStandardHelpOptions = true,
    description = "Run the idempotency and balance-safety scenarios on the ledger core.")
public final class DemoCommand implements Runnable
{
    private static final int TRY = CurrencyCode.pack("TRY");
    private static final long TENANT = 1;
    private static final long START_NS = 1_767_225_600_000_000_000L; // 2026-01-01T00:00:00Z

    /** Built by {@link #run()}: picocli makes every command object at start, and {@code tally serve} needs no demo ledger. */
    private Ledger ledger;
    private final Command command = new Command();
    private final AccountView account = new AccountView();
    private final PrintStream out = System.out;
    private long index;

    @Override
    public void run()
    {
        ledger = new Ledger(LedgerConfig.small());
        out.println("== accounts: a funding account, a customer, a merchant with 16 sub-balances");
        createAccount("acct-funding", 1, 1, false);
        createAccount("acct-customer", 2, 1, true);
        createAccount("acct-merchant", 3, 16, true);
        transfer("fund", 1, 2, 2_000_00, null);

        out.println("== the same key 100 times: one effect");
        for (int i = 0; i < 100; i++)
        {
            final Result r = transfer("pay-1", 2, 3, 100_00, "inv-1");
            if (i == 0 || i == 99)
            {
                out.println("   attempt " + (i + 1) + ": " + r);
            }
        }
        out.println("== the same key with another amount: rejected, first result intact");
        out.println("   " + transfer("pay-1", 2, 3, 999_00, "inv-1"));
        out.println("== a new key with a used reference: duplicate reference");
        out.println("   " + transfer("pay-2", 2, 3, 100_00, "inv-1"));
        out.println("== 4 x 1000.00 on the remaining balance: insufficient funds stops the overdraw");
        for (int i = 0; i < 4; i++)
        {
            out.println("   " + transfer("big-" + i, 2, 3, 1_000_00, null));
        }
        out.println("customer available: " + available(2) + " minor, merchant available: " + available(3) + " minor");
        out.println("state hash: " + StateDigest.hex(ledger.stateHash()));
    }

    private void createAccount(final String key, final long id, final int subBalances, final boolean constrained)
    {
        begin(CommandType.CREATE_ACCOUNT, key, "account:" + id);
        command.accountId = id;
        command.currency = TRY;
        command.subBalances = subBalances;
        command.debitsMustNotExceedCredits = constrained;
        out.println("   " + ledger.apply(command));
    }

    private Result transfer(final String key, final long debit, final long credit, final long amountMinor, final String reference)
    {
        begin(CommandType.TRANSFER, key, "transfer:" + debit + ":" + credit + ":" + amountMinor + ":" + reference);
        command.debitAccountId = debit;
        command.creditAccountId = credit;
        command.amountMinor = amountMinor;
        command.currency = TRY;
        if (reference != null)
        {
            final byte[] bytes = reference.getBytes(StandardCharsets.US_ASCII);
            final long[] digest = digest("ref:" + reference);
            command.referenceHi = digest[0];
            command.referenceLo = digest[1];
            System.arraycopy(bytes, 0, command.reference, 0, bytes.length);
            command.referenceLength = bytes.length;
        }
        return ledger.apply(command);
    }

    private void begin(final CommandType type, final String key, final String payload)
    {
        command.clear();
        command.type = type;
        command.journalIndex = ++index;
        command.timestampNs = START_NS + index * 1_000_000L;
        command.tenantId = TENANT;
        final long[] keyDigest = digest("key:" + key);
        command.keyHi = keyDigest[0];
        command.keyLo = keyDigest[1];
        final long[] fingerprint = digest(payload);
        command.fingerprintHi = fingerprint[0];
        command.fingerprintLo = fingerprint[1];
    }

    private long available(final long accountId)
    {
        return ledger.readAccount(accountId, TENANT, account).availableTotal();
    }

    private static long[] digest(final String text)
    {
        try
        {
            final byte[] sha = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            long hi = 0;
            long lo = 0;
            for (int i = 0; i < 8; i++)
            {
                hi = (hi << 8) | (sha[i] & 0xFF);
                lo = (lo << 8) | (sha[8 + i] & 0xFF);
            }
            return new long[] {hi, lo};
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException(ex);
        }
    }
}
