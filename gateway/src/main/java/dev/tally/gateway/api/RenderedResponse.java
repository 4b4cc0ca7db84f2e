package dev.tally.gateway.api;

import dev.tally.gateway.api.problem.Problem;

/**
 * The HTTP envelope of a rendered reply; the body itself went into the caller's buffer. Mutable and owned
 * by one {@link ResponseRenderer}: valid until that renderer's next call.
 */
public final class RenderedResponse
{
    /** Media type of every successful reply and of a batch. */
    public static final String JSON = "application/json";

    private int status;
    private String contentType;
    private boolean replayed;
    private int retryAfterSeconds;

    /** @return the HTTP status code. */
    public int status()
    {
        return status;
    }

    /** @return {@link #JSON} or {@link Problem#CONTENT_TYPE}. */
    public String contentType()
    {
        return contentType;
    }

    /**
     * @return true when the reply is an idempotent replay: the HTTP layer adds
     * {@code Idempotent-Replayed: true}. For a batch, true only when every operation was replayed.
     */
    public boolean replayed()
    {
        return replayed;
    }

    /** @return seconds for a {@code Retry-After} header, or 0 for none. */
    public int retryAfterSeconds()
    {
        return retryAfterSeconds;
    }

    RenderedResponse set(final int status, final String contentType, final boolean replayed, final int retryAfterSeconds)
    {
        this.status = status;
        this.contentType = contentType;
        this.replayed = replayed;
        this.retryAfterSeconds = retryAfterSeconds;
        return this;
    }
}
