package dev.tally.snapshotter;

import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.StateDigest;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.currency.CurrencyCode;
import dev.tally.ledger.id.Uuid7;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A random but reproducible stream of units of work for one ledger: accounts (ordinary, hot, funding;
 * two tenants, two currencies), transfers with references (some reused), reversals, holds with short
 * timeouts, captures, voids, retries of earlier keys with the same payload and with another one, atomic
 * and plain batches, ticks, and SNAPSHOT commands. Time advances a few milliseconds per command so that
 * keys, references, transfers and holds expire inside a short run ({@link #CONFIG}'s windows).
 *
 * <p>Usage: {@link #nextUnit()} returns the unit's commands; stamp each (the journal sets index and
 * time) and report it with {@link #stamped}, so that later commands can name its transfer or hold.
 */
final class Workload
{
    /** Small tables and windows of a few hundred milliseconds: expiry happens within a few hundred commands. */
    static final LedgerConfig CONFIG = new LedgerConfig(256, 2_048, 8_192, 8_192, 8_192, 2_048, 300, 400, 500, 10_000);
    static final long START_NS = 1_767_225_600_000_000_000L;

    private static final int USD = CurrencyCode.pack("USD");
    private static final int EUR = CurrencyCode.pack("EUR");

    private final SplittableRandom random;
    private final List<long[]> accounts = new ArrayList<>();   // {id, tenant, currency}
    private final List<long[]> transfers = new ArrayList<>();  // {index, time, tenant}
    private final List<long[]> holds = new ArrayList<>();      // {index, time, tenant}
    private final List<Command> keyed = new ArrayList<>();
    private long clockNs = START_NS;
    private long nextKey;
    private long nextAccountId = 1;
    private final int snapshotPercent;

    Workload(final long seed, final int snapshotPercent)
    {
        this.random = new SplittableRandom(seed);
        this.snapshotPercent = snapshotPercent;
    }

    /** @return the journaler's clock for the next command: a few milliseconds later, sometimes the same. */
    long clockNs()
    {
        clockNs += random.nextInt(4) * 1_000_000L + random.nextInt(1000);
        return clockNs;
    }

    /** Remembers what a stamped command created, so that later commands can name it. */
    void stamped(final Command c)
    {
        if (c.type == CommandType.TRANSFER || c.type == CommandType.REVERSE_TRANSFER)
        {
            transfers.add(new long[] {c.journalIndex, c.timestampNs, c.tenantId});
        }
        else if (c.type == CommandType.CREATE_HOLD)
        {
            holds.add(new long[] {c.journalIndex, c.timestampNs, c.tenantId});
        }
        if (c.type.isKeyed())
        {
            keyed.add(new Command().copyFrom(c));
        }
    }

    /** @return the next unit: one command, or the operations of a batch. */
    List<Command> nextUnit()
    {
        final int roll = random.nextInt(100);
        if (accounts.size() < 6 || roll < 4)
        {
            return List.of(createAccount());
        }
        if (roll < 4 + snapshotPercent)
        {
            return List.of(unkeyed(CommandType.SNAPSHOT));
        }
        if (roll < 12 + snapshotPercent)
        {
            return List.of(unkeyed(CommandType.TICK));
        }
        if (roll < 18 + snapshotPercent)
        {
            final int size = 2 + random.nextInt(3);
            final boolean atomic = random.nextBoolean();
            final List<Command> batch = new ArrayList<>();
            for (int i = 0; i < size; i++)
            {
                final Command c = operation();
                c.batchSize = size;
                c.batchPosition = i;
                c.atomic = atomic;
                batch.add(c);
            }
            return batch;
        }
        return List.of(operation());
    }

    private Command operation()
    {
        final int roll = random.nextInt(100);
        if (roll < 8 && !keyed.isEmpty())
        {
            return retry(roll < 6);
        }
        if (roll < 50)
        {
            return transfer();
        }
        if (roll < 60 && !transfers.isEmpty())
        {
            return targeted(CommandType.REVERSE_TRANSFER, transfers, Uuid7.KIND_TRANSFER);
        }
        if (roll < 75)
        {
            return hold();
        }
        if (roll < 85 && !holds.isEmpty())
        {
            return targeted(CommandType.CAPTURE_HOLD, holds, Uuid7.KIND_HOLD);
        }
        if (roll < 92 && !holds.isEmpty())
        {
            return targeted(random.nextBoolean() ? CommandType.VOID_HOLD : CommandType.MARK_HOLD_UNKNOWN, holds, Uuid7.KIND_HOLD);
        }
        return transfer();
    }

    private Command createAccount()
    {
        final Command c = keyed(CommandType.CREATE_ACCOUNT, 1 + random.nextInt(2));
        c.accountId = nextAccountId++;
        c.currency = random.nextInt(4) == 0 ? EUR : USD;
        final int kind = accounts.size() < 4 ? accounts.size() : random.nextInt(6);
        c.debitsMustNotExceedCredits = kind >= 2;                      // 0, 1: funding accounts
        c.subBalances = kind == 2 ? 8 : 1;                             // 2: hot
        c.overdraftLimitMinor = kind == 3 ? 500 : 0;
        accounts.add(new long[] {c.accountId, c.tenantId, c.currency});
        return seal(c);
    }

    private Command transfer()
    {
        final long[] debit = accounts.get(random.nextInt(accounts.size()));
        final long[] credit = random.nextInt(4) == 0 ? accounts.get(random.nextInt(accounts.size())) : sameKindAs(debit);
        final Command c = keyed(CommandType.TRANSFER, debit[1]);
        c.debitAccountId = debit[0];
        c.creditAccountId = credit[0];
        c.currency = (int)debit[2];
        c.amountMinor = 1 + random.nextInt(random.nextBoolean() ? 100 : 5_000);
        if (random.nextInt(3) == 0)
        {
            final String reference = "inv-" + random.nextInt(400);
            c.referenceHi = StateDigest.mix(reference.hashCode() * 31L + c.tenantId);
            c.referenceLo = StateDigest.mix(c.referenceHi ^ reference.length());
            final byte[] bytes = reference.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            System.arraycopy(bytes, 0, c.reference, 0, bytes.length);
            c.referenceLength = bytes.length;
        }
        return seal(c);
    }

    /** @return a random account of the same tenant and currency (the account itself when it is the only one). */
    private long[] sameKindAs(final long[] account)
    {
        final int start = random.nextInt(accounts.size());
        for (int n = 0; n < accounts.size(); n++)
        {
            final long[] other = accounts.get((start + n) % accounts.size());
            if (other != account && other[1] == account[1] && other[2] == account[2])
            {
                return other;
            }
        }
        return account;
    }

    private Command hold()
    {
        final long[] account = accounts.get(random.nextInt(accounts.size()));
        final Command c = keyed(CommandType.CREATE_HOLD, account[1]);
        c.accountId = account[0];
        c.currency = (int)account[2];
        c.amountMinor = 1 + random.nextInt(300);
        c.holdTimeoutMs = 5 + random.nextInt(200);
        return seal(c);
    }

    /** A reversal, capture, void or mark-unknown of a recent transfer or hold (amount 0: all that is left). */
    private Command targeted(final CommandType type, final List<long[]> targets, final int kind)
    {
        final long[] target = targets.get(Math.max(0, targets.size() - 1 - random.nextInt(Math.min(targets.size(), 30))));
        final Command c = aimedAt(keyed(type, target[2]), target[0], target[1], kind);
        c.amountMinor = random.nextBoolean() ? 0 : 1 + random.nextInt(50);
        c.currency = c.amountMinor == 0 ? 0 : USD;
        if (type == CommandType.CAPTURE_HOLD)
        {
            c.creditAccountId = accounts.get(random.nextInt(accounts.size()))[0];
        }
        return seal(c);
    }

    /** @return {@code c}, naming the transfer or hold ({@code kind}) created at {@code journalIndex} and {@code timestampNs}. */
    static Command aimedAt(final Command c, final long journalIndex, final long timestampNs, final int kind)
    {
        c.targetIdHi = Uuid7.hi(timestampNs, kind);
        c.targetIdLo = Uuid7.lo(journalIndex, 0);
        return c;
    }

    /** An earlier key again: the same payload (a client retry) or another one (a reused key). */
    private Command retry(final boolean samePayload)
    {
        final Command c = new Command().copyFrom(keyed.get(keyed.size() - 1 - random.nextInt(Math.min(keyed.size(), 50))));
        c.batchSize = 1;
        c.batchPosition = 0;
        c.atomic = false;
        if (!samePayload)
        {
            c.amountMinor += 1;
            seal(c);
        }
        return c;
    }

    private Command keyed(final CommandType type, final long tenantId)
    {
        final Command c = new Command();
        c.type = type;
        c.tenantId = tenantId;
        c.keyHi = StateDigest.mix(++nextKey);
        c.keyLo = StateDigest.mix(~nextKey);
        return c;
    }

    private static Command unkeyed(final CommandType type)
    {
        final Command c = new Command();
        c.type = type;
        return c;
    }

    private static Command seal(final Command c)
    {
        c.fingerprintHi = new StateDigest().add(c.type.code()).add(c.accountId).add(c.debitAccountId).add(c.creditAccountId)
            .add(c.amountMinor).add(c.currency).add(c.targetIdHi).add(c.targetIdLo).add(c.holdTimeoutMs).add(c.referenceHi).value();
        c.fingerprintLo = StateDigest.mix(c.fingerprintHi);
        return c;
    }
}
