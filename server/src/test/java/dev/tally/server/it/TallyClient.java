package dev.tally.server.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A small client of the Tally v1 API over real HTTP/1.1 on loopback, for integration tests. Every call
 * is bounded by a timeout and returns the {@link Reply} as received; nothing is interpreted here.
 * Thread-safe (one {@link HttpClient}, which pools connections).
 */
final class TallyClient
{
    static final String TRY = "TRY";
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private final HttpClient http;
    private final int port;
    private final String base;
    private final String apiKey;

    /**
     * @param port   the server's port on 127.0.0.1.
     * @param apiKey the bearer key; {@code null} sends no {@code Authorization} header.
     */
    TallyClient(final int port, final String apiKey)
    {
        this(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(CONNECT_TIMEOUT).build(), port, apiKey);
    }

    private TallyClient(final HttpClient http, final int port, final String apiKey)
    {
        this.http = http;
        this.port = port;
        this.base = "http://127.0.0.1:" + port;
        this.apiKey = apiKey;
    }

    /** @return a client on the same connections that presents another key ({@code null}: none). */
    TallyClient withApiKey(final String otherKey)
    {
        return new TallyClient(http, port, otherKey);
    }

    // ---- raw requests ----

    Reply get(final String path)
    {
        return send(request(path).GET());
    }

    /** POSTs {@code json} with the given {@code Idempotency-Key} ({@code null}: no header). */
    Reply post(final String path, final String idempotencyKey, final String json)
    {
        final HttpRequest.Builder request = request(path)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8));
        if (idempotencyKey != null)
        {
            request.header("Idempotency-Key", idempotencyKey);
        }
        return send(request);
    }

    /** Sends any method with an optional body and key. */
    Reply method(final String method, final String path, final String idempotencyKey, final String json)
    {
        final HttpRequest.Builder request = request(path).method(method,
            json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8));
        if (idempotencyKey != null)
        {
            request.header("Idempotency-Key", idempotencyKey);
        }
        return send(request);
    }

    /** Sends a prepared request (with the client's key added); for headers the helpers do not set. */
    Reply send(final HttpRequest.Builder request)
    {
        if (apiKey != null)
        {
            request.setHeader("Authorization", "Bearer " + apiKey);
        }
        try
        {
            final HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return new Reply(response.statusCode(), response.headers(), response.body());
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    HttpRequest.Builder request(final String path)
    {
        return HttpRequest.newBuilder(URI.create(base + path)).timeout(REQUEST_TIMEOUT);
    }

    // ---- the API ----

    /** Creates an account under the key {@code "account-<id>"}. */
    Reply createAccount(final long id, final String currency, final boolean debitsMustNotExceedCredits)
    {
        return post("/v1/accounts", "account-" + id, accountJson(id, currency, debitsMustNotExceedCredits));
    }

    Reply transfer(final String key, final long debitAccountId, final long creditAccountId, final String amount, final String currency,
        final String reference)
    {
        return post("/v1/transfers", key, transferJson(debitAccountId, creditAccountId, amount, currency, reference));
    }

    Reply hold(final String key, final long accountId, final String amount, final String currency, final long expiresInMs)
    {
        return post("/v1/holds", key, "{\"accountId\":" + accountId + ",\"amount\":\"" + amount + "\",\"currency\":\"" + currency +
            "\",\"expiresInMs\":" + expiresInMs + "}");
    }

    /** Captures {@code amount} ({@code null}: all) of a hold to {@code creditAccountId}. */
    Reply capture(final String key, final String holdId, final long creditAccountId, final String amount, final String currency)
    {
        final String body = amount == null ? "{\"creditAccountId\":" + creditAccountId + "}" :
            "{\"creditAccountId\":" + creditAccountId + ",\"amount\":\"" + amount + "\",\"currency\":\"" + currency + "\"}";
        return post("/v1/holds/" + holdId + "/capture", key, body);
    }

    Reply voidHold(final String key, final String holdId)
    {
        return post("/v1/holds/" + holdId + "/void", key, "");
    }

    Reply batch(final String json)
    {
        return post("/v1/batch", null, json);
    }

    Reply account(final long id)
    {
        return get("/v1/accounts/" + id);
    }

    Reply transferById(final String id)
    {
        return get("/v1/transfers/" + id);
    }

    /** @return the account's body; fails the test unless the read is a 200. */
    Json accountJson(final long id)
    {
        final Reply reply = account(id);
        if (reply.status() != 200)
        {
            throw new AssertionError("GET account " + id + ": " + reply);
        }
        return reply.json();
    }

    // ---- bodies ----

    static String accountJson(final long id, final String currency, final boolean debitsMustNotExceedCredits)
    {
        return "{\"id\":" + id + ",\"currency\":\"" + currency + "\",\"debitsMustNotExceedCredits\":" + debitsMustNotExceedCredits + "}";
    }

    static String transferJson(final long debitAccountId, final long creditAccountId, final String amount, final String currency,
        final String reference)
    {
        return "{\"debitAccountId\":" + debitAccountId + ",\"creditAccountId\":" + creditAccountId + ",\"amount\":\"" + amount +
            "\",\"currency\":\"" + currency + "\"" + (reference == null ? "" : ",\"reference\":\"" + reference + "\"") + "}";
    }
}
