package dev.tally.perf.persistence;

import com.sun.net.httpserver.HttpServer;
import dev.tally.ledger.id.Uuid7;
import dev.tally.persistence.db.Database;
import dev.tally.persistence.db.EmbeddedDatabase;
import dev.tally.persistence.outbox.OutboxRelay;
import dev.tally.persistence.outbox.RelayConfig;
import dev.tally.persistence.outbox.WebhookEndpoint;
import dev.tally.persistence.outbox.WebhookSignature;

import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How fast one or more relays drain a backlog of outbox events to a loopback receiver: a real embedded
 * PostgreSQL (fsync off: throwaway), the real relay, a JDK HTTP receiver that checks every signature and
 * answers 204. Measures events/s from the relays' start to an empty outbox, the CPU the JVM used (relay +
 * receiver; PostgreSQL is a separate process) and how many TCP connections the receiver saw (reuse).
 *
 * Run from the repository's root (PostgreSQL's data under {@code target/relay-harness-pg}):
 * <pre>
 * mvn -B -q -pl perf -am package -DskipTests
 * java -Xmx3g --add-exports=java.base/jdk.internal.misc=ALL-UNNAMED -cp perf/target/benchmarks.jar \
 *     dev.tally.perf.persistence.RelayThroughputHarness events=50000 batch=100 relays=1 eventsPerAggregate=1
 * </pre>
 */
public final class RelayThroughputHarness
{
    private static final byte[] SECRET = "harness-secret-0123456789".getBytes(StandardCharsets.UTF_8);

    private RelayThroughputHarness()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int events = intArg(args, "events", 50_000);
        final int batch = intArg(args, "batch", 100);
        final int relays = intArg(args, "relays", 1);
        final int perAggregate = intArg(args, "eventsPerAggregate", 1);
        final AtomicLong received = new AtomicLong();
        final AtomicLong badSignatures = new AtomicLong();
        final Set<Integer> ports = ConcurrentHashMap.newKeySet();
        final ExecutorService receiverThreads = Executors.newFixedThreadPool(4);
        final HttpServer receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 256);
        receiver.createContext("/hooks", exchange ->
        {
            final byte[] body;
            try (InputStream in = exchange.getRequestBody())
            {
                body = in.readAllBytes();
            }
            if (WebhookSignature.verify(SECRET, exchange.getRequestHeaders().getFirst(WebhookSignature.HEADER), body,
                Instant.now().getEpochSecond(), WebhookSignature.TOLERANCE_DEFAULT_S) != WebhookSignature.Verification.VALID)
            {
                badSignatures.incrementAndGet();
            }
            received.incrementAndGet();
            ports.add(exchange.getRemoteAddress().getPort());
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        receiver.setExecutor(receiverThreads);
        receiver.start();

        // fsync off: the database is thrown away after the run
        try (EmbeddedDatabase pg = EmbeddedDatabase.start(HarnessDirectory.fresh("relay-harness-pg"), 0, false);
             Database db = Database.connect(pg))
        {
            db.migrate();
            insert(db, events, perAggregate);
            final RelayConfig config = RelayConfig.defaults(List.of(new WebhookEndpoint(
                URI.create("http://127.0.0.1:" + receiver.getAddress().getPort() + "/hooks"), SECRET)))
                .withBatch(batch).withTimings(5, 10_000, 30_000);
            final long cpuStartNs = processCpuNs();
            final long startNs = System.nanoTime();
            final List<OutboxRelay> running = new ArrayList<>();
            for (int i = 0; i < relays; i++)
            {
                running.add(new OutboxRelay(db.dataSource(), config).start());
            }
            while (unpublished(db) > 0)
            {
                Thread.sleep(20);
            }
            final long elapsedNs = System.nanoTime() - startNs;
            final long cpuNs = processCpuNs() - cpuStartNs;
            running.forEach(OutboxRelay::close);
            final double seconds = elapsedNs / 1e9;
            System.out.printf("RESULT events=%d batch=%d relays=%d eventsPerAggregate=%d seconds=%.2f events_per_s=%.0f"
                    + " jvm_cores=%.2f jvm_cpu_us_per_event=%.1f received=%d bad_signatures=%d connections=%d%n",
                events, batch, relays, perAggregate, seconds, events / seconds, cpuNs / (double)elapsedNs,
                cpuNs / 1e3 / events, received.get(), badSignatures.get(), ports.size());
        }
        finally
        {
            receiver.stop(0);
            receiverThreads.shutdownNow();
        }
    }

    private static void insert(final Database db, final int events, final int perAggregate) throws Exception
    {
        final long baseNs = System.currentTimeMillis() * 1_000_000L;
        try (Connection c = db.dataSource().getConnection(); PreparedStatement s = c.prepareStatement(
            "INSERT INTO outbox (id, tenant_id, aggregate_type, aggregate_id, event_type, payload, journal_index, created_at)" +
            " VALUES (?, 1, 'transfer', ?, 'TransferPosted', ?::jsonb, ?, ?)"))
        {
            c.setAutoCommit(false);
            for (int i = 1; i <= events; i++)
            {
                final UUID id = new UUID(Uuid7.hi(baseNs + i * 1_000L, Uuid7.KIND_EVENT), Uuid7.lo(i, 0));
                s.setObject(1, id);
                s.setString(2, "tr-" + (i / perAggregate));
                s.setString(3, "{\"schemaVersion\":1,\"eventId\":\"" + id + "\",\"type\":\"TransferPosted\",\"tenantId\":1," +
                    "\"journalIndex\":" + i + ",\"transferId\":\"" + id + "\",\"debitAccountId\":1,\"creditAccountId\":2," +
                    "\"amount\":\"1.00\",\"amountMinor\":100,\"currency\":\"TRY\",\"reference\":null}");
                s.setLong(4, i);
                s.setTimestamp(5, new Timestamp(baseNs / 1_000_000L));
                s.addBatch();
                if (i % 5_000 == 0)
                {
                    s.executeBatch();
                }
            }
            s.executeBatch();
            c.commit();
        }
    }

    private static long unpublished(final Database db) throws Exception
    {
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM outbox WHERE published_at IS NULL"))
        {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static long processCpuNs()
    {
        return ((com.sun.management.OperatingSystemMXBean)ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static int intArg(final String[] args, final String name, final int defaultValue)
    {
        for (final String arg : args)
        {
            if (arg.startsWith(name + "="))
            {
                return Integer.parseInt(arg.substring(name.length() + 1));
            }
        }
        return defaultValue;
    }
}
