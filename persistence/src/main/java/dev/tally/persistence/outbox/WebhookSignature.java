package dev.tally.persistence.outbox;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@value #HEADER} header, in Stripe's convention: {@code t=<unix seconds>,v1=<hex HMAC-SHA256>}, the MAC
 * taken over {@code "<t>.<body>"} (the timestamp, a dot, the exact body bytes) with the endpoint's secret.
 *
 * <p>Signing the timestamp with the body is what makes a replay detectable: a captured request cannot be
 * re-sent later with a fresh {@code t}, and an old one fails the tolerance window. A consumer may accept
 * several {@code v1=} values in one header (Tally sends one; more appear while a secret is rotated).
 *
 * <pre>{@code
 * WebhookSignature.Verification v = WebhookSignature.verify(secret, request.header("Tally-Signature"), bodyBytes,
 *     Instant.now().getEpochSecond(), WebhookSignature.TOLERANCE_DEFAULT_S);
 * if (v != WebhookSignature.Verification.VALID) respond(400);
 * }</pre>
 */
public final class WebhookSignature
{
    /** The header carrying the signature. */
    public static final String HEADER = "Tally-Signature";
    /** How far a signature's timestamp may be from the consumer's clock, either way, by default. */
    public static final long TOLERANCE_DEFAULT_S = 300;
    /** Longest header a verifier reads: a timestamp and a handful of signatures. */
    public static final int HEADER_LENGTH_MAX = 1024;

    private static final String ALGORITHM = "HmacSHA256";
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /** What {@link #verify} found. Rejections are results, not exceptions: a consumer maps them to 400. */
    public enum Verification
    {
        VALID,
        /** No header, or not {@code t=…,v1=…}. */
        MALFORMED,
        /** The timestamp is outside the tolerance window: possibly a replayed request. */
        OUTSIDE_TOLERANCE,
        /** No {@code v1} matches: wrong secret or an altered body. */
        MISMATCH
    }

    private final Mac mac;

    /** A signer for one secret; not thread-safe (one per relay thread). */
    public WebhookSignature(final byte[] secret)
    {
        mac = newMac(secret);
    }

    /** @return the header value for {@code body} signed at {@code timestampS}. */
    public String header(final long timestampS, final byte[] body)
    {
        return "t=" + timestampS + ",v1=" + hex(digest(mac, timestampS, body));
    }

    /**
     * Checks a received header against the body and the consumer's clock. Compares in constant time.
     *
     * @param secret     the endpoint's secret.
     * @param header     the {@value #HEADER} value, or null.
     * @param body       the raw body bytes as received (before any JSON parsing).
     * @param nowS       the consumer's unix time, seconds.
     * @param toleranceS how far the timestamp may be from {@code nowS}; {@link #TOLERANCE_DEFAULT_S} unless you
     *                   have a reason.
     */
    public static Verification verify(
        final byte[] secret, final String header, final byte[] body, final long nowS, final long toleranceS)
    {
        if (header == null || header.length() > HEADER_LENGTH_MAX)
        {
            return Verification.MALFORMED;
        }
        long timestampS = -1;
        final List<byte[]> candidates = new ArrayList<>(2);
        int signatures = 0;
        for (final String part : header.split(","))
        {
            final int eq = part.indexOf('=');
            if (eq <= 0)
            {
                return Verification.MALFORMED;
            }
            final String key = part.substring(0, eq).trim();
            final String value = part.substring(eq + 1).trim();
            if (key.equals("t"))
            {
                timestampS = parseSeconds(value);
                if (timestampS < 0)
                {
                    return Verification.MALFORMED;
                }
            }
            else if (key.equals("v1"))
            {
                signatures++;
                final byte[] candidate = unhex(value);
                if (candidate != null)
                {
                    candidates.add(candidate);
                }
            }
            // Other schemes (v0, future v2) are ignored, as in Stripe's convention.
        }
        if (timestampS < 0 || signatures == 0)
        {
            return Verification.MALFORMED;
        }
        if (Math.abs(nowS - timestampS) > toleranceS)
        {
            return Verification.OUTSIDE_TOLERANCE;
        }
        final byte[] expected = digest(newMac(secret), timestampS, body);
        boolean matched = false;
        for (final byte[] candidate : candidates)
        {
            // isEqual is constant-time in the content: no timing oracle on the MAC.
            matched |= MessageDigest.isEqual(expected, candidate);
        }
        return matched ? Verification.VALID : Verification.MISMATCH;
    }

    private static byte[] digest(final Mac mac, final long timestampS, final byte[] body)
    {
        mac.update(Long.toString(timestampS).getBytes(StandardCharsets.US_ASCII));
        mac.update((byte)'.');
        return mac.doFinal(body);
    }

    private static Mac newMac(final byte[] secret)
    {
        try
        {
            final Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(secret, ALGORITHM));
            return mac;
        }
        catch (final GeneralSecurityException ex)
        {
            // HmacSHA256 is mandatory in every JDK: this is a broken runtime, not an input error.
            throw new IllegalStateException(ALGORITHM + " unavailable", ex);
        }
    }

    private static long parseSeconds(final String value)
    {
        if (value.isEmpty() || value.length() > 12)
        {
            return -1;
        }
        long seconds = 0;
        for (int i = 0; i < value.length(); i++)
        {
            final char c = value.charAt(i);
            if (c < '0' || c > '9')
            {
                return -1;
            }
            seconds = seconds * 10 + (c - '0');
        }
        return seconds;
    }

    static String hex(final byte[] bytes)
    {
        final char[] out = new char[bytes.length * 2];
        for (int i = 0; i < bytes.length; i++)
        {
            out[2 * i] = HEX[(bytes[i] >> 4) & 0xF];
            out[2 * i + 1] = HEX[bytes[i] & 0xF];
        }
        return new String(out);
    }

    private static byte[] unhex(final String hex)
    {
        if (hex.length() != 64)
        {
            return null;
        }
        final byte[] out = new byte[32];
        for (int i = 0; i < out.length; i++)
        {
            final int high = Character.digit(hex.charAt(2 * i), 16);
            final int low = Character.digit(hex.charAt(2 * i + 1), 16);
            if (high < 0 || low < 0)
            {
                return null;
            }
            out[i] = (byte)((high << 4) | low);
        }
        return out;
    }
}
