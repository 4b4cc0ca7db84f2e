package dev.tally.gateway.api;

import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;

import java.nio.ByteBuffer;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The three 128-bit digests the gateway puts on a {@link Command}: SHA-256 truncated to its first 16
 * bytes, read big-endian as {@code hi} then {@code lo}. All integers below are big-endian.
 *
 * <pre>
 * key digest       = SHA-256( tenantId:8 | key ASCII bytes )
 * reference digest = SHA-256( "ref" | tenantId:8 | reference ASCII bytes )
 * fingerprint      = SHA-256( operation wire name | 0x00 | canonical payload )
 *
 * canonical payload, by operation (fixed order and width, values already normalized):
 *   account   accountId:8 currency:4 subBalances:4 debitsMustNotExceedCredits:1 overdraftLimitMinor:8
 *             [metadataLength:4 canonical metadata bytes]   (only when there is metadata, as for a transfer)
 *             [lowBalanceAlertMinor:8]   (only with a threshold: an account without one keeps the fingerprint it had
 *             before thresholds existed)
 *   transfer  debitAccountId:8 creditAccountId:8 amountMinor:8 currency:4 referenceLength:4 reference bytes
 *             [metadataLength:4 canonical metadata bytes]   (only when there is metadata: a transfer without
 *             any keeps the fingerprint it had before metadata existed)
 *   reversal  targetIdHi:8 targetIdLo:8 amountMinor:8 currency:4
 *   hold      accountId:8 amountMinor:8 currency:4 holdTimeoutMs:8
 *   capture   targetIdHi:8 targetIdLo:8 creditAccountId:8 amountMinor:8 currency:4
 *   void      targetIdHi:8 targetIdLo:8
 *   freeze    accountId:8 credits:1
 *   unfreeze  accountId:8
 *   close     accountId:8
 *   metadata  accountId:8 metadataLength:4 canonical metadata bytes   (length 0: {} removes the metadata)
 *   setLowBalanceAlert     accountId:8 thresholdMinor:8 currency:4   (threshold in thousandths when currency is 0)
 *   removeLowBalanceAlert  accountId:8
 * </pre>
 * The fingerprint is over values, not text, so JSON member order, whitespace, {@code "10.5"} versus
 * {@code 10.50}, and an omitted default versus the default written out, all give the same fingerprint.
 * The tenant is not in the fingerprint: the key it is compared under is already per tenant. Fingerprints
 * are stored by the ledger for the key retention window: this layout is a persistent format, change it
 * only with a version bump of the idempotency table.
 *
 * <p>Not thread-safe (one {@link MessageDigest} and one scratch buffer): one per {@link RequestDecoder}.
 */
final class RequestDigests
{
    private static final int DIGEST_LENGTH = 32;
    private static final byte[] REFERENCE_PREFIX = {'r', 'e', 'f'};
    /** Largest canonical input: a transfer with a full reference and the most metadata, with room to spare. */
    private static final int SCRATCH_LENGTH = 512 + dev.tally.ledger.LedgerLimits.METADATA_LENGTH_MAX;

    private final MessageDigest sha256;
    private final ByteBuffer scratch = ByteBuffer.allocate(SCRATCH_LENGTH);
    private final byte[] digest = new byte[DIGEST_LENGTH];
    private long hi;
    private long lo;

    RequestDigests()
    {
        try
        {
            sha256 = MessageDigest.getInstance("SHA-256");
        }
        catch (final NoSuchAlgorithmException e)
        {
            throw new IllegalStateException("every Java platform must provide SHA-256", e);
        }
    }

    /** Sets {@code keyHi/keyLo} from the tenant and a validated key of visible ASCII characters. */
    void key(final long tenantId, final CharSequence key, final Command into)
    {
        scratch.clear();
        scratch.putLong(tenantId);
        // straight into the array: ByteBuffer.put(byte) per character, with its checks, was 14 % of a batch's decode
        final byte[] bytes = scratch.array();
        int at = scratch.position();
        for (int i = 0; i < key.length(); i++)
        {
            bytes[at++] = (byte)key.charAt(i);
        }
        scratch.position(at);
        finish();
        into.keyHi = hi;
        into.keyLo = lo;
    }

    /** Sets {@code referenceHi/referenceLo} from the tenant and the reference bytes already on the command. */
    void reference(final Command into)
    {
        scratch.clear();
        scratch.put(REFERENCE_PREFIX).putLong(into.tenantId).put(into.reference, 0, into.referenceLength);
        finish();
        into.referenceHi = hi;
        into.referenceLo = lo;
    }

    /** Sets {@code fingerprintHi/fingerprintLo} from the operation and the validated payload on the command. */
    void fingerprint(final Operation operation, final Command c)
    {
        scratch.clear();
        scratch.put(operation.wireNameBytes()).put((byte)0);
        switch (operation)
        {
            case ACCOUNT:
                scratch.putLong(c.accountId).putInt(c.currency).putInt(c.subBalances)
                    .put((byte)(c.debitsMustNotExceedCredits ? 1 : 0)).putLong(c.overdraftLimitMinor);
                optionalMetadata(c);
                if (c.amountMinor > 0)
                {
                    scratch.putLong(c.amountMinor);
                }
                break;
            case TRANSFER:
                scratch.putLong(c.debitAccountId).putLong(c.creditAccountId).putLong(c.amountMinor).putInt(c.currency)
                    .putInt(c.referenceLength).put(c.reference, 0, c.referenceLength);
                optionalMetadata(c);
                break;
            case ACCOUNT_METADATA:
                scratch.putLong(c.accountId).putInt(c.metadataLength).put(c.metadata.array(), 0, c.metadataLength);
                break;
            case REVERSAL:
                scratch.putLong(c.targetIdHi).putLong(c.targetIdLo).putLong(c.amountMinor).putInt(c.currency);
                break;
            case HOLD:
                scratch.putLong(c.accountId).putLong(c.amountMinor).putInt(c.currency).putLong(c.holdTimeoutMs);
                break;
            case CAPTURE:
                scratch.putLong(c.targetIdHi).putLong(c.targetIdLo).putLong(c.creditAccountId).putLong(c.amountMinor)
                    .putInt(c.currency);
                break;
            case VOID:
                scratch.putLong(c.targetIdHi).putLong(c.targetIdLo);
                break;
            case FREEZE:
                scratch.putLong(c.accountId).put((byte)(c.type == CommandType.FREEZE_ACCOUNT_ALL ? 1 : 0));
                break;
            case UNFREEZE:
            case CLOSE:
            case REMOVE_LOW_BALANCE_ALERT:
                scratch.putLong(c.accountId);
                break;
            case SET_LOW_BALANCE_ALERT:
                scratch.putLong(c.accountId).putLong(c.amountMinor).putInt(c.currency);
                break;
            default:
                throw new IllegalArgumentException("no canonical form for " + operation);
        }
        finish();
        c.fingerprintHi = hi;
        c.fingerprintLo = lo;
    }

    /** Adds the metadata when there is some: a payload without any keeps the fingerprint it had before metadata existed. */
    private void optionalMetadata(final Command c)
    {
        if (c.metadataLength > 0)
        {
            scratch.putInt(c.metadataLength).put(c.metadata.array(), 0, c.metadataLength);
        }
    }

    private void finish()
    {
        sha256.update(scratch.array(), 0, scratch.position());
        try
        {
            sha256.digest(digest, 0, DIGEST_LENGTH);
        }
        catch (final DigestException e)
        {
            throw new IllegalStateException("SHA-256 output does not fit " + DIGEST_LENGTH + " bytes", e);
        }
        hi = readLong(0);
        lo = readLong(8);
    }

    private long readLong(final int offset)
    {
        long value = 0;
        for (int i = 0; i < 8; i++)
        {
            value = (value << 8) | (digest[offset + i] & 0xFF);
        }
        return value;
    }
}
