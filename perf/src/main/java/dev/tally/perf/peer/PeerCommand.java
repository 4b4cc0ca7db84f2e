package dev.tally.perf.peer;

import dev.tally.server.cli.TransportConverter;
import dev.tally.gateway.http.NettyTransport;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;

/** {@code peer}: runs the PostgreSQL-per-request peer alone until Ctrl-C (for the load generator's {@code run}). */
@CommandLine.Command(name = "peer", mixinStandardHelpOptions = true,
    description = "Serve the PostgreSQL-per-request peer on 127.0.0.1 until stopped.")
final class PeerCommand implements Callable<Integer>
{
    @CommandLine.Option(names = "--port", defaultValue = "8081", description = "HTTP port; 0 picks one (default: ${DEFAULT-VALUE}).")
    int port;

    @CommandLine.Option(names = "--api-key", required = true, description = "TENANT:KEY, repeatable.")
    List<String> apiKeys = new ArrayList<>();

    @CommandLine.Option(names = "--synchronous-commit", defaultValue = "on", description = "on or off (default: ${DEFAULT-VALUE}).")
    String synchronousCommit;

    @CommandLine.Option(names = "--pool", defaultValue = "" + PeerConfig.POOL_SIZE_DEFAULT,
        description = "HikariCP connections = JDBC threads (default: ${DEFAULT-VALUE}).")
    int pool;

    @CommandLine.Option(names = "--path", defaultValue = "function", description = "function or statements (default: ${DEFAULT-VALUE}).")
    String path;

    @CommandLine.Option(names = "--io-threads", defaultValue = "1", description = "Netty I/O threads (default: ${DEFAULT-VALUE}).")
    int ioThreads;

    @CommandLine.Option(names = "--hot-rows", defaultValue = "sub-balances",
        description = "Balance rows of an account with sub-balances: sub-balances (as many as it has) or a number; 1 is the naive " +
            "one-row design (default: ${DEFAULT-VALUE}).")
    String hotRows;

    @CommandLine.Option(names = "--transport", defaultValue = "auto", converter = TransportConverter.class,
        description = "Netty transport: auto (io_uring where the kernel offers it, else nio), nio or io_uring (default: ${DEFAULT-VALUE}).")
    NettyTransport transport;


    @Override
    public Integer call() throws Exception
    {
        CompareMain.quietLogs();
        final PeerConfig config = new PeerConfig(CompareCommand.onOff(synchronousCommit), pool, 16_384, ioThreads, TransferPath.parse(path),
            apiKeys, port, transport, HotRows.parse(hotRows));
        final CountDownLatch stopped = new CountDownLatch(1);
        final PeerServer peer = new PeerServer(config);
        Runtime.getRuntime().addShutdownHook(new Thread(() ->
        {
            peer.close();
            stopped.countDown();
        }, "peer-shutdown"));
        System.out.println(peer.describe());
        System.out.println("peer listening on http://127.0.0.1:" + peer.port());
        stopped.await();
        return 0;
    }
}
