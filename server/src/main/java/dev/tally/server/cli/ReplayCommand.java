package dev.tally.server.cli;

import dev.tally.journal.JournalReader;
import dev.tally.journal.ReplayResult;
import dev.tally.journal.ReplayStatus;
import dev.tally.snapshotter.LedgerRecovery;
import dev.tally.snapshotter.RecoveredLedger;
import dev.tally.snapshotter.ReplayProgress;
import dev.tally.snapshotter.ReplaySource;
import dev.tally.ledger.command.Command;
import java.util.function.BiConsumer;
import dev.tally.ledger.Ledger;
import dev.tally.ledger.LedgerStats;
import dev.tally.ledger.StateDigest;
import dev.tally.ledger.query.AccountVisitor;
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
 *
 * <p>{@code --to-index N} stops after journal index N, {@code --until T} after the last command journaled at or before
 * the instant T (to the microsecond, as the read model keeps times): the state, its hash and the balances as they stood
 * then, which {@code GET /v1/accounts/{id}?atIndex=} and {@code ?at=} answer from the read model. The rest of the
 * journal is still read and checked, not applied. A point inside an atomic batch replays the batch's commands up to it
 * and then rolls the unfinished batch back, as a journal ending there would.
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

    @CommandLine.Option(names = "--to-index", paramLabel = "N",
        description = "Stop after journal index N: print the state as it stood then.")
    Long toIndex;

    @CommandLine.Option(names = "--until", paramLabel = "INSTANT",
        description = "Stop after the last command journaled at or before this RFC 3339 instant (to the microsecond).")
    String until;

    @CommandLine.Option(names = "--account", paramLabel = "[TENANT_ID/]ID",
        description = "Print only this account's balances (repeatable; TENANT_ID is the number replay prints).")
    java.util.List<String> onlyAccounts = new java.util.ArrayList<>();

    @CommandLine.Option(names = "--print-max", defaultValue = "100000",
        description = "Print at most this many accounts' balances (default: ${DEFAULT-VALUE}); a last line says how many more.")
    int accountsMax;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

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
        final ReplayBound bound;
        try
        {
            bound = ReplayBound.of(toIndex, until);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new CommandLine.ParameterException(spec.commandLine(), ex.getMessage());
        }
        if (bound != null && until != null && source.fromSnapshot)
        {
            throw new CommandLine.ParameterException(spec.commandLine(),
                "--until replays from the journal's start: a snapshot's time is not known before it is loaded (use --to-index)");
        }
        final long startNs = System.nanoTime();
        final RecoveredLedger recovered;
        try (JournalReader reader = JournalReader.open(source.journalDir()))
        {
            // REPORT: a damaged journal prints how far it reads, with status CORRUPT and exit status 2, never COMPLETE
            final ReplaySource journal = bound == null ? reader::replay :
                (fromIndexExclusive, consumer) -> reader.replay(fromIndexExclusive, command ->
                {
                    if (bound.includes(command))
                    {
                        consumer.accept(command);
                    }
                });
            recovered = LedgerRecovery.recover(source.snapshots(), journal, ledgerOptions.resolve(source.dataDir),
                bound == null || bound.toIndex() < 0 ? Long.MAX_VALUE : bound.toIndex(), source.snapshotWitness(),
                LedgerRecovery.OnBrokenJournal.REPORT, progressOnATerminal());
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

    /** @return true when the account's balances are printed: {@code --account} names it (or none is given). */
    private boolean selected(final long tenantId, final long accountId)
    {
        if (onlyAccounts.isEmpty())
        {
            return true;
        }
        for (final String wanted : onlyAccounts)
        {
            final int slash = wanted.indexOf('/');
            if (slash < 0 ? wanted.equals(Long.toString(accountId)) :
                wanted.substring(0, slash).equals(Long.toString(tenantId)) && wanted.substring(slash + 1).equals(Long.toString(accountId)))
            {
                return true;
            }
        }
        return false;
    }

    /** Calls {@code printer} for the selected accounts, at most {@code --print-max}: @return how many more were selected. */
    private long forEachPrinted(final Ledger ledger, final AccountVisitor printer)
    {
        final long[] count = {0};
        ledger.forEachAccount(a ->
        {
            if (selected(a.tenantId, a.accountId) && count[0]++ < accountsMax)
            {
                printer.visit(a);
            }
        });
        return Math.max(0, count[0] - accountsMax);
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
                    final long more = forEachPrinted(ledger, a ->
                    {
                        final int digits = CurrencyCode.minorDigits(a.currency);
                        out.print(separator[0] + "{\"tenantId\":" + a.tenantId + ",\"id\":" + a.accountId + ",\"currency\":\"" +
                            CurrencyCode.unpack(a.currency) + "\",\"posted\":\"" + Money.format(a.postedTotal(), digits) +
                            "\",\"held\":\"" + Money.format(a.heldTotal(), digits) + "\"}");
                        separator[0] = ",";
                    });
                    out.print("]" + (more > 0 ? ",\"accountsNotPrinted\":" + more : ""));
                }
                out.println("}");
                break;
            case csv:
                out.println("tenant_id,account_id,currency,posted,held,available");
                final long moreRows = forEachPrinted(ledger, a ->
                {
                    final int digits = CurrencyCode.minorDigits(a.currency);
                    out.println(a.tenantId + "," + a.accountId + "," + CurrencyCode.unpack(a.currency) + "," +
                        Money.format(a.postedTotal(), digits) + "," + Money.format(a.heldTotal(), digits) + "," +
                        Money.format(a.postedTotal() - a.heldTotal(), digits));
                });
                if (moreRows > 0)
                {
                    out.println("# accounts_not_printed=" + moreRows);
                }
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
                    final long moreLines = forEachPrinted(ledger, a ->
                    {
                        final int digits = CurrencyCode.minorDigits(a.currency);
                        out.println("account " + a.tenantId + "/" + a.accountId + " " + CurrencyCode.unpack(a.currency) +
                            " posted " + Money.format(a.postedTotal(), digits) + " held " + Money.format(a.heldTotal(), digits));
                    });
                    if (moreLines > 0)
                    {
                        out.println("and " + moreLines + " more accounts not printed (--print-max " + accountsMax + ")");
                    }
                }
                break;
        }
    }
}
