package dev.tally.persistence.outbox;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The body a webhook carries: the stored payload with the tenant's name first, escaped, or null when not known. */
class DeliveredBodyTest
{
    private static final String PAYLOAD = "{\"type\": \"AccountCreated\", \"tenantId\": \"3560702751991153304\"}";

    @Test
    void shouldPutTheTenantsNameFirst()
    {
        assertEquals("{\"tenant\": \"demo\", \"type\": \"AccountCreated\", \"tenantId\": \"3560702751991153304\"}", body(PAYLOAD, "demo"));
    }

    @Test
    void shouldSayNullForATenantWhoseNameIsNotKnown()
    {
        assertEquals("{\"tenant\": null, \"type\": \"AccountCreated\", \"tenantId\": \"3560702751991153304\"}", body(PAYLOAD, null));
        assertEquals("{\"tenant\": null}", body("{}", null));
    }

    @Test
    void shouldEscapeWhatANameMayHoldAndKeepTheRestAsUtf8()
    {
        assertEquals("{\"tenant\": \"acme \\u0022eu\\u0022 \\u005c \\u000a \u015fube\", \"type\": \"x\"}",
            body("{\"type\": \"x\"}", "acme \"eu\" \\ \n \u015fube"));
    }

    @Test
    void shouldRefuseAPayloadThatIsNotAnObject()
    {
        assertThrows(IllegalArgumentException.class, () -> DeliveredBody.of("[1]", "demo"));
    }

    private static String body(final String payload, final String tenant)
    {
        return new String(DeliveredBody.of(payload, tenant), StandardCharsets.UTF_8);
    }
}
