package dev.tally.persistence.outbox;

import dev.tally.persistence.outbox.WebhookSignature.Verification;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The Stripe-style signature: a known vector, and each way a verification can fail. */
class WebhookSignatureTest
{
    private static final byte[] SECRET = "whsec_test_0123456789abcdef".getBytes(StandardCharsets.UTF_8);
    private static final byte[] BODY = "{\"eventId\":\"e1\"}".getBytes(StandardCharsets.UTF_8);
    private static final long T = 1_764_500_000L;
    /** {@code printf '1764500000.{"eventId":"e1"}' | openssl dgst -sha256 -hmac 'whsec_test_0123456789abcdef'} */
    private static final String OPENSSL_HEX = "2657881c1593b81be531eb7afd456a1d834919abf296c3a594204d876a1e16ee";

    @Test
    void shouldSignTimestampDotBodyAsOpensslDoes()
    {
        assertEquals("t=1764500000,v1=" + OPENSSL_HEX, new WebhookSignature(SECRET).header(T, BODY));
    }

    @Test
    void shouldAcceptItsOwnSignatureInsideTheToleranceWindowEitherWay()
    {
        final String header = new WebhookSignature(SECRET).header(T, BODY);
        assertEquals(Verification.VALID, WebhookSignature.verify(SECRET, header, BODY, T, 300));
        assertEquals(Verification.VALID, WebhookSignature.verify(SECRET, header, BODY, T + 300, 300), "boundary: exactly 300 s later");
        assertEquals(Verification.VALID, WebhookSignature.verify(SECRET, header, BODY, T - 300, 300), "clock skew the other way");
    }

    @Test
    void shouldRejectATimestampOutsideTheToleranceWindow()
    {
        final String header = new WebhookSignature(SECRET).header(T, BODY);
        assertEquals(Verification.OUTSIDE_TOLERANCE, WebhookSignature.verify(SECRET, header, BODY, T + 301, 300));
    }

    @Test
    void shouldRejectAnAlteredBodyAWrongSecretOrAnAlteredTimestamp()
    {
        final String header = new WebhookSignature(SECRET).header(T, BODY);
        assertEquals(Verification.MISMATCH,
            WebhookSignature.verify(SECRET, header, "{\"eventId\":\"e2\"}".getBytes(StandardCharsets.UTF_8), T, 300));
        assertEquals(Verification.MISMATCH,
            WebhookSignature.verify("another-secret-0123456789".getBytes(StandardCharsets.UTF_8), header, BODY, T, 300));
        assertEquals(Verification.MISMATCH, WebhookSignature.verify(SECRET, header.replace("t=" + T, "t=" + (T + 1)), BODY, T, 300),
            "the timestamp is signed: moving it breaks the signature");
    }

    @Test
    void shouldAcceptAnyMatchingV1AmongSeveralAndIgnoreOtherSchemes()
    {
        final String header = "t=" + T + ",v0=abc,v1=" + "0".repeat(64) + ",v1=" + OPENSSL_HEX;
        assertEquals(Verification.VALID, WebhookSignature.verify(SECRET, header, BODY, T, 300));
    }

    @Test
    void shouldAcceptTheTimestampAfterTheSignature()
    {
        assertEquals(Verification.VALID, WebhookSignature.verify(SECRET, "v1=" + OPENSSL_HEX + ",t=" + T, BODY, T, 300));
    }

    @Test
    void shouldReportMalformedHeaders()
    {
        assertEquals(Verification.MALFORMED, WebhookSignature.verify(SECRET, null, BODY, T, 300));
        assertEquals(Verification.MALFORMED, WebhookSignature.verify(SECRET, "", BODY, T, 300));
        assertEquals(Verification.MALFORMED, WebhookSignature.verify(SECRET, "v1=" + OPENSSL_HEX, BODY, T, 300), "no timestamp");
        assertEquals(Verification.MALFORMED, WebhookSignature.verify(SECRET, "t=" + T, BODY, T, 300), "no signature");
        assertEquals(Verification.MALFORMED, WebhookSignature.verify(SECRET, "t=-5,v1=" + OPENSSL_HEX, BODY, T, 300));
        assertEquals(Verification.MALFORMED, WebhookSignature.verify(SECRET, "t=" + T + ",garbage", BODY, T, 300));
        assertEquals(Verification.MALFORMED, WebhookSignature.verify(SECRET, "t=" + T + ",v1=" + "a".repeat(2_000), BODY, T, 300),
            "longer than the header limit");
        assertEquals(Verification.MISMATCH, WebhookSignature.verify(SECRET, "t=" + T + ",v1=zz", BODY, T, 300),
            "a v1 that is not 32 hex bytes matches nothing");
    }
}
