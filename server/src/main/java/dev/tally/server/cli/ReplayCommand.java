package dev.tally.server.cli;

import dev.tally.journal.JournalReader;
import dev.tally.journal.ReplayResult;
import dev.tally.journal.ReplayStatus;
import dev.tally.snapshotter.LedgerRecovery;
import dev.tally.snapshotter.RecoveredLedger;
import dev.tally.snapshotter.ReplayProgress;
import dev.tally.ledger.command.Command;
import java.util.function.BiConsumer;
import dev.tally.ledger.Ledger;
import dev.tally.ledger.LedgerStats;
import dev.tally.ledger.StateDigest;
import dev.tally.ledger.currency.CurrencyCode;
import dev.tally.gateway.api.json.Money;
import java.io.PrintStream;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine;

/**
 * {@code tally replay}: rebuilds the ledger from the journal without a server and prints its state hash,
 * totals per currency and, on request, every account's balances. Two replays of the same journal print
 * the same hash: the audit that the state is a pure function of the journal. With {@code --from-snapshot}
 * it starts from the newest valid snapshot and replays only the journal after it: the same hash, which is
 * the audit of the snapshot. Reads only (every file opened read-only; nothing created, renamed or deleted), so it
 * takes no lock on the data folder: safe next to a running server.
 */
@CommandLine.Command(name = "replay", mixinStandardHelpOptions = true, description = "Rebuild balances from the journal, offline.")
public final class ReplayCommand implements Callable<Integer>
{
    /** The exit status of a replay that found the journal broken: it printed what it rebuilt up to the damage. */
    static final int EXIT_CORRUPT = 2;

    @CommandLine.Mixin
    ReplaySourceOptions source = new ReplaySourceOptions();

    /** picocli checks the value (exit 2 naming the choices); the constants are the flag's own spelling. */
    enum Format
    {
        text, json, csv
    }

    @CommandLine.Option(names = "--format", defaultValue = "text", description = "text, json or csv (default: ${DEFAULT-VALUE}).")
    Format format;

    @CommandLine.Option(names = "--accounts", negatable = true, defaultValue = "true", fallbackValue = "true",
        description = "Print every account's balances (the default; --no-accounts prints the hash and totals only).")
    boolean accounts;

    @CommandLine.Mixin
    LedgerOptions ledgerOptions = new LedgerOptions();

    @CommandLine.Mixin
    ConfigFileOption configFile = new ConfigFileOption();

    @Override
    public Integer call() throws java.io.IOException
    {
        if (!source.isDataFolder())
        {
            return TallyMain.EXIT_NO_DATA_FOLDER;
        }
        final long startNs = System.nanoTime();
        final RecoveredLedger recovered;
        try (JournalReader reader = JournalReader.open(source.journalDir()))
        {
            // REPORT: a damaged journal prints how far it reads, with status CORRUPT and exit status 2, never COMPLETE
            recovered = LedgerRecovery.recover(source.snapshots(), reader::replay, ledgerOptions.resolve(source.dataDir),
                Long.MAX_VALUE, source.snapshotWitness(), LedgerRecovery.OnBrokenJournal.REPORT, progressOnATerminal());
        }
        if (System.console() != null)
        {
            System.err.print("\r\033[K");   // the progress line goes; the result stays
            System.err.flush();
        }
        final long elapsedMs = (System.nanoTime() - startNs) / 1_000_000;
        print(System.out, recovered.ledger(), recovered.replay(), elapsedMs, recovered.snapshotIndex());
        return recovered.replay().status() == ReplayStatus.CORRUPT ? EXIT_CORRUPT : 0;
    }

    /**
     * @return a consumer that, when a person watches (a terminal), rewrites one progress line on stderr every second;
     *         nothing when the output goes to a file or a pipe.
     */
    private static BiConsumer<Ledger, Command> progressOnATerminal()
    {
        final BiConsumer<Ledger, Command> none = (ledger, command) -> { };
        if (System.console() == null)
        {
            return none;
        }
        return ReplayProgress.every(1_000_000_000L, (index, commands, elapsedNs) ->
        {
            System.err.printf("\rreplaying: journal index %,d, %,d commands, %,d/s\033[K", index, commands,
                commands * 1_000_000_000L / Math.max(1, elapsedNs));
            System.err.flush();
        }, none);
    }

    private void print(final PrintStream out, final Ledger ledger, final ReplayResult result, final long elapsedMs, final long snapshotIndex)
    {
        final Map<String, Long> totals = new TreeMap<>();
        ledger.forEachAccount(a -> totals.merge(CurrencyCode.unpack(a.currency), a.postedTotal(), Long::sum));
        final String hash = StateDigest.hex(ledger.stateHash());
        final LedgerStats stats = ledger.stats();   // published at the replay's end
        switch (format)
        {
            case json:
                out.print("{\"journalIndex\":" + ledger.lastJournalIndex() + ",\"snapshotIndex\":" + snapshotIndex +
                    ",\"commands\":" + result.deliveredCount() +
                    ",\"status\":\"" + result.status() + "\",\"stateHash\":\"" + hash + "\",\"totals\":{");
                String sep = "";
                for (final Map.Entry<String, Long> t : totals.entrySet())
                {
                    out.print(sep + "\"" + t.getKey() + "\":\"" + Money.format(t.getValue(), CurrencyCode.minorDigits(CurrencyCode.pack(t.getKey()))) + "\"");
                    sep = ",";
                }
                out.print("}");
                if (accounts)
                {
                    out.print(",\"accounts\":[");
                    final String[] separator = {""};
                    ledger.forEachAccount(a ->
                    {
                        final int digits = CurrencyCode.minorDigits(a.currency);
                        out.print(separator[0] + "{\"tenantId\":" + a.tenantId + ",\"id\":" + a.accountId + ",\"currency\":\"" +
                            CurrencyCode.unpack(a.currency) + "\",\"posted\":\"" + Money.format(a.postedTotal(), digits) +
                            "\",\"held\":\"" + Money.format(a.heldTotal(), digits) + "\"}");
                        separator[0] = ",";
                    });
                    out.print("]");
                }
                out.println("}");
                break;
            case csv:
                out.println("tenant_id,account_id,currency,posted,held,available");
                ledger.forEachAccount(a ->
                {
                    final int digits = CurrencyCode.minorDigits(a.currency);
                    out.println(a.tenantId + "," + a.accountId + "," + CurrencyCode.unpack(a.currency) + "," +
                        Money.format(a.postedTotal(), digits) + "," + Money.format(a.heldTotal(), digits) + "," +
                        Money.format(a.postedTotal() - a.heldTotal(), digits));
                });
                for (final Map.Entry<String, Long> t : totals.entrySet())
                {
                    out.println("# total_posted " + t.getKey() + "=" +
                        Money.format(t.getValue(), CurrencyCode.minorDigits(CurrencyCode.pack(t.getKey()))));
                }
                out.println("# state_hash=" + hash + " journal_index=" + ledger.lastJournalIndex() + " snapshot_index=" + snapshotIndex);
                break;
            case text:
            default:
                out.println((snapshotIndex == 0 ? "from the journal's start" : "from the snapshot at journal index " + snapshotIndex) +
                    ": replayed " + result.deliveredCount() + " commands up to journal index " + ledger.lastJournalIndex() +
                    " in " + elapsedMs + " ms (" + result.status() + (result.detail().isEmpty() ? "" : ": " + result.detail()) + ")");
                out.println("state hash " + hash);
                out.println("accounts " + stats.accountCount() + ", live holds " + stats.holdCount() + ", stored keys " +
                    stats.idempotencyKeyCount());
                for (final Map.Entry<String, Long> t : totals.entrySet())
                {
                    out.println("total posted " + t.getKey() + " " + Money.format(t.getValue(),
                        CurrencyCode.minorDigits(CurrencyCode.pack(t.getKey()))) + " (double entry: must be 0.00)");
                }
                if (accounts)
                {
                    ledger.forEachAccount(a ->
                    {
                        final int digits = CurrencyCode.minorDigits(a.currency);
                        out.println("account " + a.tenantId + "/" + a.accountId + " " + CurrencyCode.unpack(a.currency) +
                            " posted " + Money.format(a.postedTotal(), digits) + " held " + Money.format(a.heldTotal(), digits));
                    });
                }
                break;
        }
    }
}
