package dev.tally.server.it;

import dev.tally.gateway.http.HttpLimits;
import dev.tally.gateway.http.TlsContexts;
import dev.tally.pipeline.LedgerPipeline;
import dev.tally.server.ServerConfig;
import dev.tally.server.TallyServer;
import dev.tally.journal.Durability;
import dev.tally.ledger.LedgerConfig;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.time.Duration;
import java.util.Base64;

import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --tls-cert}/{@code --tls-key}: a self-signed certificate for 127.0.0.1 made with {@code keytool}
 * and exported to PEM; a client trusting it (hostname verification on) is served over HTTPS, and plain
 * HTTP to the same port gets no HTTP reply.
 */
class TlsIT
{
    private static final String PASSWORD = "changeit";

    @TempDir
    static Path certDir;

    private static KeyStore keyStore;
    private static Path certificatePem;
    private static Path keyPem;

    @TempDir
    Path dataDir;

    @BeforeAll
    static void makeSelfSignedCertificate() throws Exception
    {
        final Path p12 = certDir.resolve("server.p12");
        final Process keytool = new ProcessBuilder(Paths.get(System.getProperty("java.home"), "bin", "keytool").toString(),
            "-genkeypair", "-alias", "tally", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
            "-dname", "CN=127.0.0.1", "-ext", "san=ip:127.0.0.1,dns:localhost",
            "-storetype", "PKCS12", "-keystore", p12.toString(), "-storepass", PASSWORD, "-keypass", PASSWORD)
            .redirectErrorStream(true).start();
        final String output;
        try (InputStream in = keytool.getInputStream())
        {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertTrue(keytool.waitFor(60, TimeUnit.SECONDS) && keytool.exitValue() == 0, "keytool: " + output);

        keyStore = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(p12))
        {
            keyStore.load(in, PASSWORD.toCharArray());
        }
        final Certificate certificate = keyStore.getCertificate("tally");
        final PrivateKey key = (PrivateKey)keyStore.getKey("tally", PASSWORD.toCharArray());
        certificatePem = certDir.resolve("server.crt");
        keyPem = certDir.resolve("server.key");
        Files.writeString(certificatePem, pem("CERTIFICATE", certificate.getEncoded()));
        Files.writeString(keyPem, pem("PRIVATE KEY", key.getEncoded())); // PKCS#8, what getEncoded() gives
    }

    @Test
    void shouldServeHttpsToAClientTrustingTheCertificateAndNothingToPlainHttp() throws Exception
    {
        final ServerConfig config = new ServerConfig("127.0.0.1", 0, dataDir, Durability.ASYNC, Servers.apiKeys(), Servers.IO_THREADS,
            LedgerConfig.small(), LedgerPipeline.PipelineConfig.defaults(), HttpLimits.defaults(), null, false)
            .withTls(TlsContexts.forServer(certificatePem, keyPem));
        try (TallyServer server = Servers.start(config))
        {
            final HttpClient https = HttpClient.newBuilder().sslContext(trusting(keyStore.getCertificate("tally")))
                .connectTimeout(Duration.ofSeconds(10)).build();
            final HttpResponse<String> health = https.send(HttpRequest.newBuilder(
                URI.create("https://127.0.0.1:" + server.port() + "/health")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, health.statusCode(), health::body);
            final HttpResponse<String> account = https.send(HttpRequest.newBuilder(
                    URI.create("https://127.0.0.1:" + server.port() + "/v1/accounts/1"))
                .header("Authorization", "Bearer " + Servers.TENANT_KEY).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(404, account.statusCode(), "authenticated and routed over TLS: " + account.body());

            final HttpClient plain = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
            assertThrows(IOException.class, () -> plain.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.port() + "/health")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()), "plain HTTP to the TLS port gets no HTTP reply");

            final HttpClient untrusting = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
            assertThrows(IOException.class, () -> untrusting.send(HttpRequest.newBuilder(
                URI.create("https://127.0.0.1:" + server.port() + "/health")).build(), HttpResponse.BodyHandlers.ofString()),
                "a client that does not trust the self-signed certificate refuses it");
            assertEquals(200, https.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + server.port() + "/health")).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode(), "still serving");
        }
    }

    @Test
    void shouldRefuseAKeyThatIsNotPemNamingTheFlags() throws IOException
    {
        final Path notPem = certDir.resolve("not.pem");
        Files.writeString(notPem, "not a key");
        final IllegalArgumentException thrown = assertThrows(IllegalArgumentException.class,
            () -> TlsContexts.forServer(certificatePem, notPem));
        assertTrue(thrown.getMessage().contains("--tls-key"), thrown.getMessage());
        assertFalse(thrown.getMessage().contains("not a key"), "file content is not echoed");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TlsContexts.forServer(certDir.resolve("absent"), keyPem))
            .getMessage().contains("--tls-cert"));
    }

    private static SSLContext trusting(final Certificate certificate) throws Exception
    {
        final KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        trust.setCertificateEntry("tally", certificate);
        final TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(trust);
        final SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, factory.getTrustManagers(), null);
        return context;
    }

    private static String pem(final String type, final byte[] der)
    {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der) + "\n-----END " + type +
            "-----\n";
    }

}
