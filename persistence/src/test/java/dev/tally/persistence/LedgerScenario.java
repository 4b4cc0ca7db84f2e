package dev.tally.persistence;

import dev.tally.ledger.Ledger;
import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.StateDigest;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.effect.EffectLog;
import dev.tally.ledger.currency.CurrencyCode;
import dev.tally.ledger.id.Uuid7;
import dev.tally.ledger.result.Result;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * Drives a real {@link Ledger} the way the pipeline does: stamps each command with the next journal index
 * and a journaled time, applies it, and hands the effects of every completed unit to a listener (the EffectRecorder). Keeps
 * the commands it applied, so a test can replay them into a fresh ledger, as a restart would.
 */
public final class LedgerScenario
{
    /** 2026-01-31T22:00:00Z: close to a month end, so a scenario can cross into February. */
    public static final long START_NS = 1_769_896_800_000_000_000L;
    public static final int USD = CurrencyCode.pack("USD");
    public static final int EUR = CurrencyCode.pack("EUR");

    public final Ledger ledger;
    private final Consumer<EffectLog> onUnit;
    private final List<Command> journal = new ArrayList<>();
    private long nextIndex = 1;
    private long nowNs = START_NS;
    private long tenant = 1;
    private int currency = USD;
    private long events;

    public LedgerScenario(final LedgerConfig config, final Consumer<EffectLog> onUnit)
    {
        this.ledger = new Ledger(config);
        this.onUnit = onUnit;
    }

    public LedgerScenario tenant(final long tenantId)
    {
        this.tenant = tenantId;
        return this;
    }

    public LedgerScenario currency(final int packed)
    {
        this.currency = packed;
        return this;
    }

    public LedgerScenario advanceMs(final long ms)
    {
        nowNs += ms * 1_000_000L;
        return this;
    }

    /** @return every command applied so far, in journal order (copies). */
    public List<Command> journal()
    {
        return journal;
    }

    /** @return outbox events the ledger emitted over all completed units. */
    public long eventsEmitted()
    {
        return events;
    }

    // ---- commands: build (stamped, not applied) ----

    public Command account(final long id, final int subBalances, final boolean constrained, final long overdraftMinor)
    {
        final Command c = next(CommandType.CREATE_ACCOUNT);
        c.accountId = id;
        c.subBalances = subBalances;
        c.debitsMustNotExceedCredits = constrained;
        c.overdraftLimitMinor = overdraftMinor;
        return seal(c);
    }

    public Command transferCommand(final long debit, final long credit, final long amountMinor, final String reference)
    {
        return transferCommand(debit, credit, amountMinor, reference, null);
    }

    /** @param metadata canonical JSON object text, as the gateway would journal it, or null for none. */
    public Command transferCommand(
        final long debit, final long credit, final long amountMinor, final String reference, final String metadata)
    {
        final Command c = next(CommandType.TRANSFER);
        c.debitAccountId = debit;
        c.creditAccountId = credit;
        c.amountMinor = amountMinor;
        if (reference != null)
        {
            final byte[] text = reference.getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(text, 0, c.reference, 0, text.length);
            c.referenceLength = text.length;
            c.referenceHi = digest(0x52454648, reference);
            c.referenceLo = digest(0x5245464C, reference);
        }
        return seal(withMetadata(c, metadata));
    }

    /** Gives {@code c} the metadata, canonical JSON object text as the gateway would journal it; null for none. */
    private static Command withMetadata(final Command c, final String metadata)
    {
        final byte[] json = metadata == null ? new byte[0] : metadata.getBytes(StandardCharsets.UTF_8);
        return c.metadata(json, json.length);
    }

    public Command holdCommand(final long account, final long amountMinor, final long timeoutMs)
    {
        final Command c = next(CommandType.CREATE_HOLD);
        c.accountId = account;
        c.amountMinor = amountMinor;
        c.holdTimeoutMs = timeoutMs;
        return seal(c);
    }

    // ---- commands: build and apply ----

    public Result createAccount(final long id, final int subBalances, final boolean constrained, final long overdraftMinor)
    {
        return apply(account(id, subBalances, constrained, overdraftMinor));
    }

    /** Creates an ordinary account with metadata (canonical JSON object text). */
    public Result createAccount(final long id, final String metadata)
    {
        return apply(seal(withMetadata(account(id, 1, true, 0), metadata)));
    }

    /** Replaces the metadata of an account of the current tenant (canonical JSON object text; null removes it). */
    public Result updateMetadata(final long accountId, final String metadata)
    {
        final Command c = next(CommandType.UPDATE_ACCOUNT_METADATA);
        c.currency = 0;
        c.accountId = accountId;
        return apply(seal(withMetadata(c, metadata)));
    }

    public Result transfer(final long debit, final long credit, final long amountMinor, final String reference)
    {
        return apply(transferCommand(debit, credit, amountMinor, reference));
    }

    public Result transfer(final long debit, final long credit, final long amountMinor, final String reference, final String metadata)
    {
        return apply(transferCommand(debit, credit, amountMinor, reference, metadata));
    }

    public Result reverse(final Result transfer, final long amountMinor)
    {
        final Command c = next(CommandType.REVERSE_TRANSFER);
        c.targetIdHi = Uuid7.hi(transfer.originTimestampNs, Uuid7.KIND_TRANSFER);
        c.targetIdLo = Uuid7.lo(transfer.originIndex, 0);
        c.amountMinor = amountMinor;
        c.currency = amountMinor == 0 ? 0 : currency;
        return apply(seal(c));
    }

    public Result hold(final long account, final long amountMinor, final long timeoutMs)
    {
        return apply(holdCommand(account, amountMinor, timeoutMs));
    }

    public Result capture(final Result hold, final long credit, final long amountMinor)
    {
        final Command c = target(CommandType.CAPTURE_HOLD, hold);
        c.creditAccountId = credit;
        c.amountMinor = amountMinor;
        c.currency = amountMinor == 0 ? 0 : currency;
        return apply(seal(c));
    }

    public Result voidHold(final Result hold)
    {
        return apply(seal(target(CommandType.VOID_HOLD, hold)));
    }

    /** Freezes, unfreezes or closes an account of the current tenant ({@code FREEZE_ACCOUNT} ... {@code CLOSE_ACCOUNT}). */
    public Result lifecycle(final CommandType type, final long accountId)
    {
        final Command c = next(type);
        c.currency = 0;
        c.accountId = accountId;
        return apply(seal(c));
    }

    /** Sets (or, with 0, removes) the low-balance threshold of an account of the current tenant, in its currency's minor units. */
    public Result lowBalanceAlert(final long accountId, final long thresholdMinor)
    {
        final Command c = next(CommandType.SET_LOW_BALANCE_ALERT);
        c.accountId = accountId;
        c.amountMinor = thresholdMinor;
        return apply(seal(c));
    }

    public Result markUnknown(final Result hold)
    {
        return apply(seal(target(CommandType.MARK_HOLD_UNKNOWN, hold)));
    }

    public Result tick(final long advanceMs)
    {
        advanceMs(advanceMs);
        final Command c = next(CommandType.TICK);
        c.keyHi = 0;
        c.keyLo = 0;
        return apply(c);
    }

    /** Applies already built, consecutive commands as one batch; returns each operation's result (copies). */
    public Result[] batch(final boolean atomic, final Command... operations)
    {
        for (int i = 0; i < operations.length; i++)
        {
            operations[i].batchSize = operations.length;
            operations[i].batchPosition = i;
            operations[i].atomic = atomic;
        }
        for (final Command c : operations)
        {
            apply(c);
        }
        final Result[] results = new Result[operations.length];
        for (int i = 0; i < operations.length; i++)
        {
            results[i] = new Result().copyFrom(ledger.result(i));
        }
        return results;
    }

    /** Applies one command, hands a completed unit to the listener, and returns a copy of the result. */
    public Result apply(final Command c)
    {
        journal.add(new Command().copyFrom(c));
        final Result r = new Result().copyFrom(ledger.apply(c));
        if (ledger.isUnitComplete())
        {
            events += ledger.effects().eventCount();
            onUnit.accept(ledger.effects());
        }
        return r;
    }

    /** Replays commands into another ledger (a restart), handing each completed unit to {@code onUnit}. */
    public static Ledger replay(final List<Command> journal, final LedgerConfig config, final Consumer<EffectLog> onUnit)
    {
        final Ledger ledger = new Ledger(config);
        final Command c = new Command();
        for (final Command original : journal)
        {
            ledger.apply(c.copyFrom(original));
            if (ledger.isUnitComplete())
            {
                onUnit.accept(ledger.effects());
            }
        }
        return ledger;
    }

    public static UUID transferId(final Result r)
    {
        return new UUID(Uuid7.hi(r.originTimestampNs, Uuid7.KIND_TRANSFER), Uuid7.lo(r.originIndex, 0));
    }

    public static UUID holdId(final Result r)
    {
        return new UUID(Uuid7.hi(r.originTimestampNs, Uuid7.KIND_HOLD), Uuid7.lo(r.originIndex, 0));
    }

    private Command target(final CommandType type, final Result hold)
    {
        final Command c = next(type);
        c.targetIdHi = Uuid7.hi(hold.originTimestampNs, Uuid7.KIND_HOLD);
        c.targetIdLo = Uuid7.lo(hold.originIndex, 0);
        c.currency = 0;
        return c;
    }

    private Command next(final CommandType type)
    {
        final Command c = new Command();
        nowNs += 1_000_000L;
        c.journalIndex = nextIndex++;
        c.timestampNs = nowNs;
        c.type = type;
        c.tenantId = tenant;
        c.currency = currency;
        c.keyHi = StateDigest.mix(0x4B45594849L ^ StateDigest.mix(tenant) ^ c.journalIndex);
        c.keyLo = StateDigest.mix(0x4B45594C4FL ^ c.journalIndex);
        return c;
    }

    private long digest(final long seed, final String text)
    {
        long h = StateDigest.mix(seed ^ StateDigest.mix(tenant));
        for (int i = 0; i < text.length(); i++)
        {
            h = StateDigest.mix(h ^ text.charAt(i) ^ ((long)i << 32));
        }
        return h;
    }

    private static Command seal(final Command c)
    {
        final StateDigest d = new StateDigest().add(c.type.code()).add(c.tenantId).add(c.accountId).add(c.debitAccountId)
            .add(c.creditAccountId).add(c.amountMinor).add(c.currency).add(c.subBalances).add(c.targetIdHi).add(c.targetIdLo)
            .add(c.holdTimeoutMs).add(c.referenceHi).add(c.referenceLo);
        for (int i = 0; i < c.metadataLength; i++)
        {
            d.add(c.metadata.array()[i]);
        }
        c.fingerprintHi = d.value();
        c.fingerprintLo = d.add(1).value();
        return c;
    }
}
