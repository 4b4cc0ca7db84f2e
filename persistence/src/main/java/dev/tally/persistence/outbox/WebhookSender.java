package dev.tally.persistence.outbox;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * POSTs one event to one endpoint with the JDK's {@link HttpClient}, signed; never throws, every outcome is a
 * {@link DeliveryAttempt}. Requests of a round run concurrently on the client's connections; the signing
 * happens on the caller's (relay) thread, so each endpoint's {@link WebhookSignature} needs no locking.
 *
 * <p>Headers: {@value #EVENT_ID_HEADER}, {@value #EVENT_TYPE_HEADER}, {@value #ATTEMPT_HEADER},
 * {@value WebhookSignature#HEADER}, {@code Content-Type: application/json}. HTTP/1.1 only: an {@code http://}
 * endpoint would otherwise be probed with an h2c upgrade, which some servers mishandle.
 */
final class WebhookSender implements AutoCloseable
{
    static final String EVENT_ID_HEADER = "Tally-Event-Id";
    static final String EVENT_TYPE_HEADER = "Tally-Event-Type";
    static final String ATTEMPT_HEADER = "Tally-Delivery-Attempt";
    private static final String USER_AGENT = "tally-webhooks/1";
    /** Threads completing responses; the requests themselves are non-blocking. */
    private static final int CLIENT_THREADS = 2;

    private final ExecutorService executor;
    private final HttpClient client;
    private final Duration requestTimeout;

    WebhookSender(final String threadNamePrefix, final long connectTimeoutMs, final long requestTimeoutMs)
    {
        final AtomicInteger threads = new AtomicInteger();
        executor = Executors.newFixedThreadPool(CLIENT_THREADS, r ->
        {
            final Thread t = new Thread(r, threadNamePrefix + "-http-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofMillis(connectTimeoutMs))
            .followRedirects(HttpClient.Redirect.NEVER)   // a redirect could carry a signed body somewhere unintended
            .executor(executor)
            .build();
        requestTimeout = Duration.ofMillis(requestTimeoutMs);
    }

    /**
     * Starts the POST of the event's payload with its tenant's name ({@link DeliveredBody}; null when not known); the future
     * always completes normally, within the request timeout.
     */
    CompletableFuture<DeliveryAttempt> send(
        final OutboxEvent event, final String tenant, final WebhookEndpoint endpoint, final WebhookSignature signer)
    {
        final byte[] body = DeliveredBody.of(event.payload(), tenant);
        final Instant attemptedAt = Instant.now();
        final HttpRequest request = HttpRequest.newBuilder(endpoint.url())
            .timeout(requestTimeout)
            .header("Content-Type", "application/json")
            .header("User-Agent", USER_AGENT)
            .header(EVENT_ID_HEADER, event.id().toString())
            .header(EVENT_TYPE_HEADER, event.eventType())
            .header(ATTEMPT_HEADER, Integer.toString(event.attempt()))
            .header(WebhookSignature.HEADER, signer.header(attemptedAt.getEpochSecond(), body))
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build();
        final String url = endpoint.displayUrl();
        final long startNs = System.nanoTime();
        return client.sendAsync(request, HttpResponse.BodyHandlers.discarding())
            .handle((response, failure) ->
            {
                final long durationMs = (System.nanoTime() - startNs) / 1_000_000;
                if (failure != null)
                {
                    return new DeliveryAttempt(event, url, attemptedAt, 0, describe(failure), durationMs);
                }
                final int status = response.statusCode();
                final String error = status >= 200 && status < 300 ? null : "HTTP " + status;
                return new DeliveryAttempt(event, url, attemptedAt, status < 100 || status > 599 ? 0 : status, error, durationMs);
            });
    }

    private static String describe(final Throwable failure)
    {
        final Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        if (cause instanceof HttpTimeoutException)
        {
            return "timeout: " + cause.getMessage();
        }
        final String message = cause.getMessage();
        return DeliveryAttempt.truncate(cause.getClass().getSimpleName() + (message == null ? "" : ": " + message));
    }

    @Override
    public void close()
    {
        executor.shutdownNow();
    }
}
