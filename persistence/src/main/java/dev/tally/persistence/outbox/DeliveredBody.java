package dev.tally.persistence.outbox;

import java.nio.charset.StandardCharsets;

/**
 * The body a webhook POST carries: the event's payload as PostgreSQL renders it (jsonb text form, an object), with the
 * tenant's name added as its first member, {@code "tenant"} (a JSON string, or null when the name is not known). The name
 * is configuration, not ledger state (the ledger knows a tenant by its id), so it is added at delivery rather than stored.
 */
final class DeliveredBody
{
    private DeliveredBody()
    {
    }

    /**
     * @param payload the event's payload, a JSON object.
     * @param tenant  the tenant's name, or null.
     * @return the body's UTF-8 bytes.
     */
    static byte[] of(final String payload, final String tenant)
    {
        if (payload.isEmpty() || payload.charAt(0) != '{')
        {
            throw new IllegalArgumentException("an outbox payload is a JSON object");
        }
        final StringBuilder body = new StringBuilder(payload.length() + 16 + (tenant == null ? 0 : tenant.length() + 8));
        body.append("{\"tenant\": ");
        if (tenant == null)
        {
            body.append("null");
        }
        else
        {
            quoted(tenant, body);
        }
        final boolean empty = payload.substring(1).trim().equals("}");
        body.append(empty ? "" : ", ").append(payload, 1, payload.length());
        return body.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Writes {@code text} as a JSON string: quotes, backslashes and control characters as {@code \\uXXXX} escapes. */
    private static void quoted(final String text, final StringBuilder out)
    {
        out.append('"');
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            if (c < 0x20 || c == '"' || c == '\\')
            {
                out.append(String.format("\\u%04x", (int)c));
            }
            else
            {
                out.append(c);
            }
        }
        out.append('"');
    }
}
