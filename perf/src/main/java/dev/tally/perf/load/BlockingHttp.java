package dev.tally.perf.load;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A small blocking HTTP/1.1 client on one keep-alive socket, for setup and checks (off the measured
 * path): requests may be pipelined with {@link #write} and their replies read in order with
 * {@link #read}.
 */
final class BlockingHttp implements Closeable
{
    private static final int TIMEOUT_MS = 120_000;

    private final Target target;
    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;

    /** A reply: status, whether it was an idempotent replay, and its body. */
    record Reply(int status, boolean replayed, byte[] body)
    {
        String text()
        {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    BlockingHttp(final Target target) throws IOException
    {
        this.target = target;
        this.socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(TIMEOUT_MS);
        socket.connect(new InetSocketAddress(target.host(), target.port()), 5_000);
        this.out = new BufferedOutputStream(socket.getOutputStream(), 64 * 1024);
        this.in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
    }

    /** @return the bytes of a request; {@code key} and {@code body} may be null. */
    byte[] request(final String method, final String path, final String key, final byte[] body)
    {
        final StringBuilder head = new StringBuilder(256)
            .append(method).append(' ').append(path).append(" HTTP/1.1\r\nHost: ").append(target.hostPort())
            .append("\r\nAuthorization: Bearer ").append(target.apiKey()).append("\r\n");
        if (key != null)
        {
            head.append("Idempotency-Key: ").append(key).append("\r\n");
        }
        if (body != null)
        {
            head.append("Content-Type: application/json\r\nContent-Length: ").append(body.length).append("\r\n");
        }
        head.append("\r\n");
        final byte[] headBytes = head.toString().getBytes(StandardCharsets.US_ASCII);
        if (body == null)
        {
            return headBytes;
        }
        final byte[] request = new byte[headBytes.length + body.length];
        System.arraycopy(headBytes, 0, request, 0, headBytes.length);
        System.arraycopy(body, 0, request, headBytes.length, body.length);
        return request;
    }

    /** Sends a request without waiting for its reply (pipelining); flushes. */
    void write(final byte[] request) throws IOException
    {
        out.write(request);
        out.flush();
    }

    /** Sends one request and reads its reply. */
    Reply exchange(final byte[] request) throws IOException
    {
        write(request);
        return read();
    }

    /** @return {@code GET path}'s reply. */
    Reply get(final String path) throws IOException
    {
        return exchange(request("GET", path, null, null));
    }

    /** Reads the next reply. */
    Reply read() throws IOException
    {
        final String statusLine = line();
        if (statusLine.length() < 12 || !statusLine.startsWith("HTTP/1."))
        {
            throw new IOException("not an HTTP response: " + statusLine);
        }
        final int status = Integer.parseInt(statusLine.substring(9, 12));
        int contentLength = -1;
        boolean replayed = false;
        String line;
        while (!(line = line()).isEmpty())
        {
            final int colon = line.indexOf(':');
            final String name = colon < 0 ? line : line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            final String value = colon < 0 ? "" : line.substring(colon + 1).trim();
            if ("content-length".equals(name))
            {
                contentLength = Integer.parseInt(value);
            }
            else if ("idempotent-replayed".equals(name))
            {
                replayed = "true".equalsIgnoreCase(value);
            }
        }
        if (contentLength < 0)
        {
            throw new IOException("reply without Content-Length (status " + status + ")");
        }
        final byte[] body = in.readNBytes(contentLength);
        if (body.length != contentLength)
        {
            throw new EOFException("connection closed inside a reply body");
        }
        return new Reply(status, replayed, body);
    }

    private String line() throws IOException
    {
        final StringBuilder line = new StringBuilder(64);
        int b;
        while ((b = in.read()) != '\n')
        {
            if (b < 0)
            {
                throw new EOFException("connection closed by the server");
            }
            if (b != '\r')
            {
                line.append((char)b);
            }
        }
        return line.toString();
    }

    @Override
    public void close() throws IOException
    {
        socket.close();
    }
}
