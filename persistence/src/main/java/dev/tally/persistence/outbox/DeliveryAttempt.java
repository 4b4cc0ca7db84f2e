package dev.tally.persistence.outbox;

import java.time.Instant;

/**
 * What one POST of one event to one endpoint did: a row of {@code webhook_deliveries}.
 *
 * @param event       the event sent.
 * @param endpointUrl where, as {@link WebhookEndpoint#displayUrl()} (no credentials).
 * @param attemptedAt when the request started.
 * @param statusCode  the HTTP status, or 0 when none came back (connection refused, timeout).
 * @param error       why it failed (no secret, no body), or null when it succeeded.
 * @param durationMs  request start to response (or failure).
 */
record DeliveryAttempt(OutboxEvent event, String endpointUrl, Instant attemptedAt, int statusCode, String error, long durationMs)
{
    /** Longest error text kept (the column holds the reason, not a stack trace). */
    static final int ERROR_LENGTH_MAX = 500;

    /** @return true for a 2xx answer: anything else is retried. */
    boolean succeeded()
    {
        return statusCode >= 200 && statusCode < 300;
    }

    static String truncate(final String error)
    {
        return error == null || error.length() <= ERROR_LENGTH_MAX ? error : error.substring(0, ERROR_LENGTH_MAX);
    }
}
