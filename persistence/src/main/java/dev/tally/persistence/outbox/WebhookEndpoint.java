package dev.tally.persistence.outbox;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

/**
 * One webhook receiver: where events are POSTed and the secret their signatures are made with.
 *
 * <p>The secret never reaches a log, and neither does what a URL may carry as a credential (user info, a token in
 * the query): logs, {@link #toString()} and the delivery log name the endpoint by {@link #displayUrl()}.
 *
 * @param url    http or https URL; compared as text in the delivery log ({@code webhook_deliveries.endpoint_url}).
 * @param secret HMAC key, at least {@value #SECRET_LENGTH_MIN_BYTES} bytes.
 */
public record WebhookEndpoint(URI url, byte[] secret)
{
    /** Shortest secret accepted: 128 bits, as for any HMAC key worth the name. */
    public static final int SECRET_LENGTH_MIN_BYTES = 16;
    /** Longest URL accepted (the delivery log keeps it per attempt). */
    public static final int URL_LENGTH_MAX = 2048;

    public WebhookEndpoint
    {
        final String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || url.getHost() == null)
        {
            throw new IllegalArgumentException("webhook URL must be http(s)://host/...: " + url);
        }
        // Two URLs run together ("http://a/x,http://b/y" from a list that was not split) would be one endpoint
        // with a strange path. A comma right before a scheme is that signature; a lone "://" is not (a query may
        // carry a return URL, "?next=https://app/done").
        if (joined(url.getRawPath()) || joined(url.getRawQuery()))
        {
            throw new IllegalArgumentException("webhook URL has ',http(s)://' after its host (two URLs joined? list them "
                + "comma-separated, or give --webhook-url once per URL): " + display(url));
        }
        if (url.toString().length() > URL_LENGTH_MAX)
        {
            throw new IllegalArgumentException("webhook URL longer than " + URL_LENGTH_MAX + " characters");
        }
        if (secret == null || secret.length < SECRET_LENGTH_MIN_BYTES)
        {
            throw new IllegalArgumentException("webhook secret must be at least " + SECRET_LENGTH_MIN_BYTES + " bytes");
        }
        secret = secret.clone();
    }

    /** @param secret UTF-8 text of the secret (as given on the command line or in {@code TALLY_WEBHOOK_SECRET}). */
    public static WebhookEndpoint of(final String url, final String secret)
    {
        return new WebhookEndpoint(URI.create(url), secret == null ? null : secret.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public byte[] secret()
    {
        return secret.clone();
    }

    /**
     * @return the URL without user info and with the query replaced by {@code ?…}: what logs, the delivery log
     * ({@code webhook_deliveries.endpoint_url}) and {@code outbox.last_error} show.
     */
    public String displayUrl()
    {
        return display(url);
    }

    private static String display(final URI url)
    {
        final String path = url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
        return url.getScheme().toLowerCase(Locale.ROOT) + "://" + url.getHost() + (url.getPort() == -1 ? "" : ":" + url.getPort())
            + path + (url.getRawQuery() == null ? "" : "?…");
    }

    private static boolean joined(final String text)
    {
        if (text == null)
        {
            return false;
        }
        final String lower = text.toLowerCase(Locale.ROOT);
        return lower.contains(",http://") || lower.contains(",https://");
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof WebhookEndpoint e && e.url.equals(url) && Arrays.equals(e.secret, secret);
    }

    @Override
    public int hashCode()
    {
        return url.hashCode();
    }

    @Override
    public String toString()
    {
        return "WebhookEndpoint[" + displayUrl() + ", secret hidden]";
    }
}
