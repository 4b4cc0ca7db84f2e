package dev.tally.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tally.gateway.http.ApiKeys;
import dev.tally.gateway.http.HttpLimits;
import dev.tally.gateway.http.ReadModelQueries;
import dev.tally.pipeline.LedgerPipeline;
import dev.tally.server.ReadModel;
import dev.tally.server.ServerConfig;
import dev.tally.journal.Durability;
import dev.tally.journal.Journal;
import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.query.TransferView;
import dev.tally.persistence.db.DataFolderLock;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.FullHttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A read of a transfer with metadata waits for the read model's writer without a thread of its own, and its reply's
 * place in the connection's order is always filled: when the writer does not get there in time, and when the
 * server stops while it waits. A real embedded PostgreSQL whose writer has written nothing: its watermark stays
 * below the transfer asked about.
 */
@Timeout(120)
class ReadModelQueriesWaitTest
{
    @TempDir
    static Path dataDir;

    private static ReadModel readModel;
    private static Journal journal;
    private static DataFolderLock lock;

    @BeforeAll
    static void startReadModel()
    {
        lock = DataFolderLock.acquire(dataDir, "ReadModelQueriesWaitTest");
        journal = Journal.open(dataDir.resolve("journal"), Durability.ASYNC);
        readModel = ReadModel.open(new ServerConfig("127.0.0.1", 0, dataDir, Durability.ASYNC,
            ApiKeys.parse(List.of("t:kkkkkkkkkkkkkkkkkkkk")), 1, LedgerConfig.small(), LedgerPipeline.PipelineConfig.defaults(),
            HttpLimits.defaults(), null, true), lock);
        readModel.startWriter(journal);
    }

    @AfterAll
    static void stopReadModel()
    {
        readModel.close();
        journal.close();
        lock.close();
    }

    @Test
    void shouldAnswer503OnceTheWaitForTheWriterOutlastsTwoSecondsFromTheRequestsArrival() throws Exception
    {
        final EmbeddedChannel channel = new EmbeddedChannel();
        final List<Integer> statuses = new ArrayList<>();
        try (ReadModelQueries queries = new ReadModelQueries(readModel))
        {
            final long startNs = System.nanoTime();
            queries.transferWithMetadata(channel, null, true, transferNotYetWritten(), System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(1_500),
                statuses::add);

            final FullHttpResponse reply = awaitReply(channel);
            final long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
            assertEquals(503, reply.status().code());
            assertEquals("1", reply.headers().get("Retry-After"));
            assertTrue(reply.content().toString(StandardCharsets.UTF_8).contains("has not reached the read model yet"));
            assertTrue(waitedMs >= 400 && waitedMs < 1_500, "waited the rest of the 2 s from arrival, not 2 s more: " + waitedMs + " ms");
            assertEquals(List.of(503), statuses);
            reply.release();
        }
        channel.finishAndReleaseAll();
    }

    @Test
    void shouldAnswerAReadStillWaitingWhenTheServerStops() throws Exception
    {
        final EmbeddedChannel channel = new EmbeddedChannel();
        final List<Integer> statuses = new ArrayList<>();
        final ReadModelQueries queries = new ReadModelQueries(readModel);
        queries.transferWithMetadata(channel, null, true, transferNotYetWritten(), System.nanoTime(), statuses::add);
        Thread.sleep(50);
        channel.runPendingTasks();
        assertNull(channel.readOutbound(), "still waiting for the writer");

        queries.close();

        final FullHttpResponse reply = awaitReply(channel);
        assertEquals(503, reply.status().code());
        assertTrue(reply.content().toString(StandardCharsets.UTF_8).contains("The server is stopping."));
        assertEquals(List.of(503), statuses, "filled once");
        reply.release();
        channel.finishAndReleaseAll();
    }

    /** A transfer memory holds with metadata, far past anything the writer has written (its watermark is 0). */
    private static TransferView transferNotYetWritten()
    {
        final TransferView view = new TransferView();
        view.found = true;
        view.hasMetadata = true;
        view.journalIndex = 1_000_000;
        view.timestampNs = 1_790_000_000_000_000_000L;
        view.tenantId = 1;
        return view;
    }

    private static FullHttpResponse awaitReply(final EmbeddedChannel channel) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline)
        {
            channel.runPendingTasks();
            final FullHttpResponse reply = channel.readOutbound();
            if (reply != null)
            {
                return reply;
            }
            Thread.sleep(5);
        }
        throw new AssertionError("no reply within 10 s");
    }
}
