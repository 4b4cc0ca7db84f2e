package dev.tally.ledger;

import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.currency.CurrencyCode;
import dev.tally.ledger.id.Uuid7;
import dev.tally.ledger.result.Result;

import java.nio.charset.StandardCharsets;

/**
 * Builds commands the way the journaler and the gateway would stamp them, for tests.
 *
 * <p>Every command built gets the next journal index (from 1, gap-free) and a journaled time one
 * millisecond after the previous command, so commands must be applied in the order they are built.
 * The gateway hashes (tenant, key) and (tenant, reference) with SHA-256 and the payload into a
 * fingerprint; here any deterministic 128-bit function does, as long as a different payload gives a
 * different fingerprint, so the digests fold strings and fields through {@link StateDigest#mix}.
 */
final class Commands
{
    /** 2026-01-01T00:00:00Z: journaled time starts here, far from 0 so that ids carry a real epoch. */
    static final long START_NS = 1_767_225_600_000_000_000L;
    /** Journaled time between two consecutive commands. */
    static final long STEP_NS = 1_000_000L;

    static final int USD = CurrencyCode.pack("USD");
    static final int EUR = CurrencyCode.pack("EUR");
    static final int JPY = CurrencyCode.pack("JPY");

    private static final long KEY_HI_SEED = 0x4B45595F48490001L;
    private static final long KEY_LO_SEED = 0x4B45595F4C4F0002L;
    private static final long REF_HI_SEED = 0x5245465F48490003L;
    private static final long REF_LO_SEED = 0x5245465F4C4F0004L;
    private static final long FP_HI_SEED = 0x46505F4849000005L;
    private static final long FP_LO_SEED = 0x46505F4C4F000006L;

    private long nextIndex = 1;
    private long nowNs = START_NS;
    private long tenantId = 1;
    private int currency = USD;

    /** Sets the tenant of the commands built from now on. */
    Commands tenant(final long tenantId)
    {
        this.tenantId = tenantId;
        return this;
    }

    /** Sets the currency of the commands built from now on. */
    Commands currency(final int currency)
    {
        this.currency = currency;
        return this;
    }

    /** Moves journaled time forward without building a command. */
    Commands advanceMs(final long ms)
    {
        nowNs += ms * 1_000_000L;
        return this;
    }

    /** @return the journal index the next command will get. */
    long nextIndex()
    {
        return nextIndex;
    }

    /** @return journaled time of the last command built. */
    long nowNs()
    {
        return nowNs;
    }

    // ---- accounts ----

    /** An ordinary account: one sub-balance, debits must not exceed credits. */
    Command createAccount(final String key, final long accountId)
    {
        return createAccount(key, accountId, currency, 1, true, 0);
    }

    /** A hot account: {@code subBalances} sub-balances, constrained. */
    Command createHotAccount(final String key, final long accountId, final int subBalances)
    {
        return createAccount(key, accountId, currency, subBalances, true, 0);
    }

    /** A funding (settlement) account: unconstrained, may go negative. */
    Command createFundingAccount(final String key, final long accountId)
    {
        return createAccount(key, accountId, currency, 1, false, 0);
    }

    Command createAccount(
        final String key, final long accountId, final int currency, final int subBalances, final boolean constrained,
        final long overdraftLimitMinor)
    {
        final Command c = next(CommandType.CREATE_ACCOUNT, key);
        c.accountId = accountId;
        c.currency = currency;
        c.subBalances = subBalances;
        c.debitsMustNotExceedCredits = constrained;
        c.overdraftLimitMinor = overdraftLimitMinor;
        return seal(c);
    }

    /** An ordinary account created with metadata ({@code json}, canonical). */
    Command createAccountWithMetadata(final String key, final long accountId, final String json)
    {
        final Command c = createAccount(key, accountId);
        return seal(withMetadata(c, json));
    }

    /** Replaces the account's metadata with {@code json} (canonical; null removes it). */
    Command updateMetadata(final String key, final long accountId, final String json)
    {
        final Command c = next(CommandType.UPDATE_ACCOUNT_METADATA, key);
        c.currency = 0;
        c.accountId = accountId;
        return seal(withMetadata(c, json));
    }

    private static Command withMetadata(final Command c, final String json)
    {
        final byte[] bytes = json == null ? new byte[0] : json.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        return c.metadata(bytes, bytes.length);
    }

    // ---- transfers ----

    Command transfer(final String key, final long debitAccountId, final long creditAccountId, final long amountMinor)
    {
        return transfer(key, debitAccountId, creditAccountId, amountMinor, currency, null);
    }

    Command transfer(
        final String key, final long debitAccountId, final long creditAccountId, final long amountMinor, final String reference)
    {
        return transfer(key, debitAccountId, creditAccountId, amountMinor, currency, reference);
    }

    Command transfer(
        final String key, final long debitAccountId, final long creditAccountId, final long amountMinor, final int currency,
        final String reference)
    {
        final Command c = next(CommandType.TRANSFER, key);
        c.debitAccountId = debitAccountId;
        c.creditAccountId = creditAccountId;
        c.amountMinor = amountMinor;
        c.currency = currency;
        if (reference != null)
        {
            final byte[] text = reference.getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(text, 0, c.reference, 0, text.length);
            c.referenceLength = text.length;
            c.referenceHi = digest(REF_HI_SEED, tenantId, reference);
            c.referenceLo = digest(REF_LO_SEED, tenantId, reference);
        }
        return seal(c);
    }

    /** Reverses {@code amountMinor} (0: all that is left) of the transfer a successful result created. */
    Command reverse(final String key, final Result transfer, final long amountMinor)
    {
        return reverse(key, transferIdHi(transfer), transferIdLo(transfer), amountMinor);
    }

    Command reverse(final String key, final long transferIdHi, final long transferIdLo, final long amountMinor)
    {
        final Command c = next(CommandType.REVERSE_TRANSFER, key);
        // Scenario amounts are minor units of the default currency, so state it (no currency = thousandths).
        c.currency = amountMinor == 0 ? 0 : currency;
        c.targetIdHi = transferIdHi;
        c.targetIdLo = transferIdLo;
        c.amountMinor = amountMinor;
        return seal(c);
    }

    // ---- holds ----

    Command hold(final String key, final long accountId, final long amountMinor, final long timeoutMs)
    {
        return hold(key, accountId, amountMinor, currency, timeoutMs);
    }

    Command hold(final String key, final long accountId, final long amountMinor, final int currency, final long timeoutMs)
    {
        final Command c = next(CommandType.CREATE_HOLD, key);
        c.accountId = accountId;
        c.amountMinor = amountMinor;
        c.currency = currency;
        c.holdTimeoutMs = timeoutMs;
        return seal(c);
    }

    /** Captures {@code amountMinor} (0: all of it) of the hold a successful result created. */
    Command capture(final String key, final Result hold, final long creditAccountId, final long amountMinor)
    {
        return capture(key, holdIdHi(hold), holdIdLo(hold), creditAccountId, amountMinor);
    }

    Command capture(
        final String key, final long holdIdHi, final long holdIdLo, final long creditAccountId, final long amountMinor)
    {
        final Command c = next(CommandType.CAPTURE_HOLD, key);
        // Scenario amounts are minor units of the default currency, so state it (no currency = thousandths).
        c.currency = amountMinor == 0 ? 0 : currency;
        c.targetIdHi = holdIdHi;
        c.targetIdLo = holdIdLo;
        c.creditAccountId = creditAccountId;
        c.amountMinor = amountMinor;
        return seal(c);
    }

    Command voidHold(final String key, final Result hold)
    {
        return voidHold(key, holdIdHi(hold), holdIdLo(hold));
    }

    Command voidHold(final String key, final long holdIdHi, final long holdIdLo)
    {
        final Command c = next(CommandType.VOID_HOLD, key);
        c.currency = 0;
        c.targetIdHi = holdIdHi;
        c.targetIdLo = holdIdLo;
        return seal(c);
    }

    Command markUnknown(final String key, final Result hold)
    {
        return markUnknown(key, holdIdHi(hold), holdIdLo(hold));
    }

    Command markUnknown(final String key, final long holdIdHi, final long holdIdLo)
    {
        final Command c = next(CommandType.MARK_HOLD_UNKNOWN, key);
        c.currency = 0;
        c.targetIdHi = holdIdHi;
        c.targetIdLo = holdIdLo;
        return seal(c);
    }

    // ---- account lifecycle ----

    /** Freezes the account's debits, or its debits and credits. */
    Command freeze(final String key, final long accountId, final boolean credits)
    {
        return lifecycle(credits ? CommandType.FREEZE_ACCOUNT_ALL : CommandType.FREEZE_ACCOUNT, key, accountId);
    }

    Command unfreeze(final String key, final long accountId)
    {
        return lifecycle(CommandType.UNFREEZE_ACCOUNT, key, accountId);
    }

    Command close(final String key, final long accountId)
    {
        return lifecycle(CommandType.CLOSE_ACCOUNT, key, accountId);
    }

    private Command lifecycle(final CommandType type, final String key, final long accountId)
    {
        final Command c = next(type, key);
        c.currency = 0;
        c.accountId = accountId;
        return seal(c);
    }

    // ---- low-balance alerts ----

    /** An ordinary account created with a low-balance threshold (in the creation's amountMinor). */
    Command createAccountWithAlert(final String key, final long accountId, final int subBalances, final long thresholdMinor)
    {
        final Command c = createAccount(key, accountId, currency, subBalances, true, 0);
        c.amountMinor = thresholdMinor;
        return seal(c);
    }

    /** Sets (or, with 0, removes) the account's low-balance threshold, in minor units of the builder's currency. */
    Command lowBalanceAlert(final String key, final long accountId, final long thresholdMinor)
    {
        final Command c = next(CommandType.SET_LOW_BALANCE_ALERT, key);
        c.accountId = accountId;
        c.amountMinor = thresholdMinor;
        return seal(c);
    }

    // ---- time, batches, retries ----

    /** A tick {@code advanceMs} after the previous command (on top of the usual step). */
    Command tick(final long advanceMs)
    {
        advanceMs(advanceMs);
        return next(CommandType.TICK, null);
    }

    /**
     * Marks already built commands as one batch. They must have been built one after the other, as
     * the journaler writes a batch's operations at consecutive indexes.
     */
    static Command[] batch(final boolean atomic, final Command... operations)
    {
        for (int i = 0; i < operations.length; i++)
        {
            if (operations[i].journalIndex != operations[0].journalIndex + i)
            {
                throw new IllegalArgumentException("batch operations must be built consecutively");
            }
            operations[i].batchSize = operations.length;
            operations[i].batchPosition = i;
            operations[i].atomic = atomic;
        }
        return operations;
    }

    /**
     * Gives a reversal or capture amount in a currency (0, the default there, means "not given"); the
     * ledger refuses one that is not the transfer's or hold's.
     */
    static Command inCurrency(final Command c, final int currency)
    {
        c.currency = currency;
        return seal(c);
    }

    /** The same request sent again (a client retry): same key, same payload, a new journal record. */
    Command resend(final Command original)
    {
        final Command c = new Command().copyFrom(original);
        stamp(c);
        c.batchSize = 1;
        c.batchPosition = 0;
        c.atomic = false;
        return c;
    }

    /**
     * The same key with another amount: a different payload, hence a different fingerprint. A creation takes no amount (its
     * amountMinor is a low-balance threshold), so there the payload differs in a field creations ignore.
     */
    Command reuse(final Command original, final long amountMinor)
    {
        final Command c = resend(original);
        if (c.type == CommandType.CREATE_ACCOUNT)
        {
            c.holdTimeoutMs = amountMinor;
        }
        else
        {
            c.amountMinor = amountMinor;
        }
        return seal(c);
    }

    // ---- ids ----

    static long transferIdHi(final Result transfer)
    {
        return Uuid7.hi(transfer.originTimestampNs, Uuid7.KIND_TRANSFER);
    }

    static long transferIdLo(final Result transfer)
    {
        return Uuid7.lo(transfer.originIndex, 0);
    }

    static long holdIdHi(final Result hold)
    {
        return Uuid7.hi(hold.originTimestampNs, Uuid7.KIND_HOLD);
    }

    static long holdIdLo(final Result hold)
    {
        return Uuid7.lo(hold.originIndex, 0);
    }

    // ---- digests ----

    /** A 64-bit digest of (seed, tenant, text); two seeds give the two halves of a 128-bit digest. */
    static long digest(final long seed, final long tenantId, final String text)
    {
        long h = StateDigest.mix(seed ^ StateDigest.mix(tenantId));
        for (int i = 0; i < text.length(); i++)
        {
            h = StateDigest.mix(h ^ text.charAt(i) ^ ((long)i << 32));
        }
        return StateDigest.mix(h ^ text.length());
    }

    /** Recomputes the fingerprint over the operation and every payload field (not the envelope). */
    static Command seal(final Command c)
    {
        c.fingerprintHi = payloadDigest(FP_HI_SEED, c);
        c.fingerprintLo = payloadDigest(FP_LO_SEED, c);
        return c;
    }

    private static long payloadDigest(final long seed, final Command c)
    {
        final StateDigest digest = new StateDigest().add(seed).add(c.type.code()).add(c.tenantId)
            .add(c.accountId).add(c.debitAccountId).add(c.creditAccountId).add(c.amountMinor).add(c.currency)
            .add(c.subBalances).add(c.debitsMustNotExceedCredits ? 1 : 0).add(c.overdraftLimitMinor)
            .add(c.targetIdHi).add(c.targetIdLo).add(c.holdTimeoutMs).add(c.referenceHi).add(c.referenceLo)
            .add(c.referenceLength);
        for (int i = 0; i < c.referenceLength; i++)
        {
            digest.add(c.reference[i]);
        }
        for (int i = 0; i < c.metadataLength; i++)
        {
            digest.add(c.metadata.array()[i]);
        }
        return digest.value();
    }

    private Command next(final CommandType type, final String key)
    {
        final Command c = new Command();
        stamp(c);
        c.type = type;
        c.tenantId = tenantId;
        c.currency = currency;
        if (key != null)
        {
            c.keyHi = digest(KEY_HI_SEED, tenantId, key);
            c.keyLo = digest(KEY_LO_SEED, tenantId, key);
        }
        return c;
    }

    private void stamp(final Command c)
    {
        nowNs += STEP_NS;
        c.journalIndex = nextIndex++;
        c.timestampNs = nowNs;
    }
}
