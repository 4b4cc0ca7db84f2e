package dev.tally.persistence.outbox;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real webhook endpoint on loopback (JDK {@link HttpServer}, port 0) that records every request in arrival
 * order, checks its signature, and answers as the test's {@link Policy} says (a status, after a delay).
 */
public final class WebhookReceiver implements AutoCloseable
{
    /** How to answer the n-th request (from 1) for one event id. */
    @FunctionalInterface
    public interface Policy
    {
        Answer answer(String eventId, int nthForEvent);
    }

    /** Status to send after {@code delayMs} (a delay beyond the relay's request timeout is a timeout). */
    public record Answer(int status, long delayMs)
    {
        public static final Answer OK = new Answer(200, 0);
    }

    /** One request as received. */
    public record Received(long sequence, String eventId, String eventType, int attemptHeader, String body,
                           WebhookSignature.Verification signature, int answeredStatus, long receivedAtMs)
    {
    }

    private final HttpServer server;
    private final ExecutorService executor = Executors.newFixedThreadPool(16);
    private final byte[] secret;
    private final Policy policy;
    private final List<Received> received = new ArrayList<>();
    private final Map<String, AtomicInteger> perEvent = new ConcurrentHashMap<>();
    private final AtomicInteger sequence = new AtomicInteger();

    public WebhookReceiver(final byte[] secret, final Policy policy) throws IOException
    {
        this.secret = secret.clone();
        this.policy = policy;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        server.createContext("/hooks", this::handle);
        server.setExecutor(executor);
        server.start();
    }

    public URI url()
    {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/hooks");
    }

    private void handle(final HttpExchange exchange) throws IOException
    {
        final long seq = sequence.incrementAndGet();
        final byte[] body;
        try (InputStream in = exchange.getRequestBody())
        {
            body = in.readAllBytes();
        }
        final String eventId = exchange.getRequestHeaders().getFirst("Tally-Event-Id");
        final WebhookSignature.Verification verification = WebhookSignature.verify(secret,
            exchange.getRequestHeaders().getFirst(WebhookSignature.HEADER), body, Instant.now().getEpochSecond(),
            WebhookSignature.TOLERANCE_DEFAULT_S);
        final int nth = perEvent.computeIfAbsent(String.valueOf(eventId), k -> new AtomicInteger()).incrementAndGet();
        final Answer answer = policy.answer(eventId, nth);
        if (answer.delayMs() > 0)
        {
            try
            {
                Thread.sleep(answer.delayMs());
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
        }
        final String attempt = exchange.getRequestHeaders().getFirst("Tally-Delivery-Attempt");
        synchronized (received)
        {
            received.add(new Received(seq, eventId, exchange.getRequestHeaders().getFirst("Tally-Event-Type"),
                attempt == null ? 0 : Integer.parseInt(attempt), new String(body, java.nio.charset.StandardCharsets.UTF_8),
                verification, answer.status(), System.currentTimeMillis()));
        }
        try
        {
            exchange.sendResponseHeaders(answer.status(), -1);
        }
        catch (final IOException ignored)
        {
            // the relay gave up waiting (timeout): nobody reads this answer
        }
        exchange.close();
    }

    /** @return every request so far, in the order their answers were decided. */
    public List<Received> received()
    {
        synchronized (received)
        {
            return new ArrayList<>(received);
        }
    }

    /** Waits until {@code count} requests were answered (a slow answer is recorded when it is sent). */
    public List<Received> awaitReceived(final int count, final long timeoutMs) throws InterruptedException
    {
        final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (received().size() < count && System.nanoTime() - deadline < 0)
        {
            Thread.sleep(10);
        }
        return received();
    }

    /** @return the requests answered 2xx, in that order. */
    public List<Received> accepted()
    {
        return received().stream().filter(r -> r.answeredStatus() >= 200 && r.answeredStatus() < 300).toList();
    }

    @Override
    public void close()
    {
        server.stop(0);
        executor.shutdownNow();
    }
}
