package dev.tally.perf.peer;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** Small helpers for the compact JSON the peer renders (no JSON library on the output side). */
final class PeerJson
{
    /** ISO-8601 UTC with milliseconds, as Tally renders times. */
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    private PeerJson()
    {
    }

    /** Appends {@code text} as a JSON string literal (quotes, backslashes and control characters escaped). */
    static void string(final StringBuilder json, final String text)
    {
        json.append('"');
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            if (c == '"' || c == '\\')
            {
                json.append('\\').append(c);
            }
            else if (c < 0x20)
            {
                json.append(String.format("\\u%04x", (int)c));
            }
            else
            {
                json.append(c);
            }
        }
        json.append('"');
    }

    /** @return epoch milliseconds as {@code 2026-05-01T12:34:56.789Z}. */
    static String time(final long epochMs)
    {
        return TIME.format(Instant.ofEpochMilli(epochMs));
    }
}
