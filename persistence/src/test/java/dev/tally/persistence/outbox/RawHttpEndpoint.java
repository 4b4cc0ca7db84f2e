package dev.tally.persistence.outbox;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * A webhook endpoint on a bare {@link ServerSocket}, for answers no HTTP server library would send: it reads each
 * request (headers, then a {@code Content-Length} body) and writes back, byte for byte, the status line the test's
 * function chooses for the event id, then closes the connection. Signatures are not checked.
 */
final class RawHttpEndpoint implements AutoCloseable
{
    private final ServerSocket server;
    private final Function<String, String> statusLine;
    private final List<String> received = new ArrayList<>();
    private final Thread acceptor;

    /** @param statusLine per {@code Tally-Event-Id}, the status line to send (without CRLF); ISO-8859-1, any bytes. */
    RawHttpEndpoint(final Function<String, String> statusLine) throws IOException
    {
        this.statusLine = statusLine;
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        acceptor = new Thread(this::accept, "raw-http-endpoint");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    URI url()
    {
        return URI.create("http://127.0.0.1:" + server.getLocalPort() + "/raw");
    }

    /** @return the event ids of the requests read so far, in arrival order. */
    List<String> received()
    {
        synchronized (received)
        {
            return new ArrayList<>(received);
        }
    }

    private void accept()
    {
        while (!server.isClosed())
        {
            try
            {
                final Socket socket = server.accept();
                final Thread t = new Thread(() -> answer(socket), "raw-http-connection");
                t.setDaemon(true);
                t.start();
            }
            catch (final IOException closed)
            {
                return;
            }
        }
    }

    private void answer(final Socket socket)
    {
        try (socket; InputStream in = socket.getInputStream(); OutputStream out = socket.getOutputStream())
        {
            String eventId = null;
            int contentLength = 0;
            for (final String line : head(in).split("\r\n"))
            {
                final int colon = line.indexOf(':');
                if (colon < 0)
                {
                    continue;   // the request line
                }
                final String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
                final String value = line.substring(colon + 1).trim();
                if (name.equals("content-length"))
                {
                    contentLength = Integer.parseInt(value);
                }
                else if (name.equals(WebhookSender.EVENT_ID_HEADER.toLowerCase(Locale.ROOT)))
                {
                    eventId = value;
                }
            }
            in.readNBytes(contentLength);
            synchronized (received)
            {
                received.add(eventId);
            }
            out.write((statusLine.apply(eventId) + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
        }
        catch (final IOException ignored)
        {
            // the client went away: nothing to answer
        }
    }

    /** Reads up to and including the blank line that ends the request's head. */
    private static String head(final InputStream in) throws IOException
    {
        final ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        final byte[] end = {'\r', '\n', '\r', '\n'};
        while (matched < end.length)
        {
            final int b = in.read();
            if (b < 0)
            {
                throw new IOException("request ended inside its head");
            }
            head.write(b);
            matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() throws IOException
    {
        server.close();
    }
}
