package dev.tally.gateway.http;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.net.ssl.SSLException;

/**
 * The server's TLS context from PEM files, built once at startup so that a missing file, a key that does
 * not match or an unreadable PEM stops the start with a message instead of failing the first handshake.
 * The JDK provider: no native library to ship, and TLS is not where Tally's time goes (a reply's cost is
 * the journal). Protocols and ciphers are the JDK's defaults (TLS 1.3 and 1.2).
 */
public final class TlsContexts
{
    private TlsContexts()
    {
    }

    /**
     * @param certificateChain PEM file: the server certificate, then any intermediates.
     * @param privateKey       PEM file: the certificate's private key, unencrypted PKCS#8 ({@code BEGIN PRIVATE KEY}).
     * @throws IllegalArgumentException naming the flag when a file is missing or the pair cannot be used.
     */
    public static SslContext forServer(final Path certificateChain, final Path privateKey)
    {
        requireReadable("--tls-cert", certificateChain);
        requireReadable("--tls-key", privateKey);
        try
        {
            return SslContextBuilder.forServer(certificateChain.toFile(), privateKey.toFile())
                .sslProvider(SslProvider.JDK)
                .build();
        }
        catch (final SSLException | IllegalArgumentException ex)
        {
            // the message names the files, never their content
            throw new IllegalArgumentException("--tls-cert " + certificateChain + " / --tls-key " + privateKey +
                " cannot be used (PEM certificate chain and unencrypted PKCS#8 key expected): " + ex.getMessage(), ex);
        }
    }

    private static void requireReadable(final String flag, final Path file)
    {
        if (!Files.isReadable(file))
        {
            throw new IllegalArgumentException(flag + " " + file + " is not a readable file");
        }
    }
}
