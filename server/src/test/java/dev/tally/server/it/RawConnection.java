package dev.tally.server.it;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * One HTTP/1.1 connection over a plain socket, for what {@link java.net.http.HttpClient} cannot send:
 * pipelined requests and raw request bytes. Reads responses framed by {@code Content-Length}; every
 * read is bounded by {@link #READ_TIMEOUT_MS}.
 */
final class RawConnection implements AutoCloseable
{
    static final int READ_TIMEOUT_MS = 10_000;
    private static final int HEADER_BYTES_MAX = 64 * 1024;
    /** The last four bytes of a response head, CR LF CR LF, as an int. */
    private static final int END_OF_HEAD = ('\r' << 24) | ('\n' << 16) | ('\r' << 8) | '\n';

    /** A response as read off the wire; header names lower-cased. */
    record RawResponse(int status, Map<String, String> headers, String body)
    {
    }

    private final Socket socket;
    private final InputStream in;

    RawConnection(final int port) throws IOException
    {
        socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), READ_TIMEOUT_MS);
        socket.setSoTimeout(READ_TIMEOUT_MS);
        in = socket.getInputStream();
    }

    /** Writes raw bytes (one or several requests) in a single write. */
    void write(final String requests) throws IOException
    {
        socket.getOutputStream().write(requests.getBytes(StandardCharsets.ISO_8859_1));
        socket.getOutputStream().flush();
    }

    /** Reads the next response. */
    RawResponse read() throws IOException
    {
        final String head = readHead();
        final String[] lines = head.split("\r\n");
        final int status = Integer.parseInt(lines[0].split(" ")[1]);
        final Map<String, String> headers = new TreeMap<>();
        for (int i = 1; i < lines.length; i++)
        {
            final int colon = lines[i].indexOf(':');
            headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
        }
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding")))
        {
            return new RawResponse(status, headers, readChunks());
        }
        final int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
        final byte[] body = in.readNBytes(length);
        if (body.length != length)
        {
            throw new IOException("connection closed after " + body.length + " of " + length + " body bytes");
        }
        return new RawResponse(status, headers, new String(body, StandardCharsets.UTF_8));
    }

    /** @return a chunked body (RFC 9112 7.1), without trailers: the size lines, each chunk, and the last, empty one. */
    private String readChunks() throws IOException
    {
        final ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true)
        {
            final StringBuilder sizeLine = new StringBuilder();
            for (int b = in.read(); b != '\n'; b = in.read())
            {
                if (b < 0)
                {
                    throw new IOException("connection closed inside a chunked body after " + body.size() + " bytes");
                }
                sizeLine.append((char)b);
            }
            final int size = Integer.parseInt(sizeLine.toString().trim(), 16);
            final byte[] chunk = in.readNBytes(size + 2);   // and its CR LF
            if (chunk.length != size + 2)
            {
                throw new IOException("connection closed inside a chunk");
            }
            if (size == 0)
            {
                return body.toString(StandardCharsets.UTF_8);
            }
            body.write(chunk, 0, size);
        }
    }

    /** @return true when the server closed the connection: the next read finds end of stream (within the read timeout). */
    boolean closedByServer() throws IOException
    {
        try
        {
            return in.read() < 0;
        }
        catch (final java.net.SocketException ex)
        {
            return true; // reset by the peer: closed too
        }
    }

    private String readHead() throws IOException
    {
        final ByteArrayOutputStream head = new ByteArrayOutputStream();
        int last4 = 0;
        while (last4 != END_OF_HEAD)
        {
            final int b = in.read();
            if (b < 0)
            {
                throw new IOException("connection closed inside a response head: " + head.toString(StandardCharsets.ISO_8859_1));
            }
            head.write(b);
            last4 = (last4 << 8) | b;
            if (head.size() > HEADER_BYTES_MAX)
            {
                throw new IOException("response head over " + HEADER_BYTES_MAX + " bytes");
            }
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() throws IOException
    {
        socket.close();
    }

    /** @return {@code request} (as {@link #request} writes it) with a {@code Request-Id} header after its {@code Host}. */
    static String withRequestId(final String request, final String requestId)
    {
        final int afterHost = request.indexOf("\r\nAuthorization:") + 2;
        return request.substring(0, afterHost) + "Request-Id: " + requestId + "\r\n" + request.substring(afterHost);
    }

    /** @return a request with {@code Host}, the tenant's key and, when there is a body, its length. */
    static String request(final String method, final String path, final String idempotencyKey, final String body)
    {
        final StringBuilder request = new StringBuilder()
            .append(method).append(' ').append(path).append(" HTTP/1.1\r\n")
            .append("Host: 127.0.0.1\r\n")
            .append("Authorization: Bearer ").append(Servers.TENANT_KEY).append("\r\n");
        if (idempotencyKey != null)
        {
            request.append("Idempotency-Key: ").append(idempotencyKey).append("\r\n");
        }
        if (body != null)
        {
            request.append("Content-Type: application/json\r\n")
                .append("Content-Length: ").append(body.getBytes(StandardCharsets.UTF_8).length).append("\r\n");
        }
        return request.append("\r\n").append(body == null ? "" : body).toString();
    }
}
