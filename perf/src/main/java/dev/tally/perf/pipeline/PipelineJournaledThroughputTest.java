package dev.tally.perf.pipeline;

import dev.tally.pipeline.EventKind;
import dev.tally.pipeline.InputRing;
import dev.tally.pipeline.LedgerEvent;
import dev.tally.pipeline.ResponderStage;
import dev.tally.pipeline.LedgerPipeline;
import dev.tally.pipeline.PipelineHealth;
import dev.tally.pipeline.UnitListener;
import dev.tally.pipeline.WaitStrategyName;
import dev.tally.journal.Durability;
import dev.tally.journal.Journal;
import dev.tally.journal.JournalConfig;
import dev.tally.ledger.Ledger;
import dev.tally.ledger.LedgerConfig;
import dev.tally.ledger.command.Command;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.currency.CurrencyCode;
import dev.tally.ledger.result.ResultCode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * The in-process pipeline with the journal on, no HTTP: how many transfers per second the journaler
 * and the business thread sustain together.
 *
 * <pre>
 *   producer thread ──► ring ──► (1) journaler ──► (2) business thread ──► (3) counting responder
 *   (pre-built           16 Ki    stamp, append      Ledger.apply           checks every result is OK,
 *    transfers,          slots    to Chronicle       (1,000,000 accounts)    counts
 *    batches of 64)               (async or sync)
 * </pre>
 *
 * Usage: {@code java -cp perf/target/benchmarks.jar dev.tally.perf.pipeline.PipelineJournaledThroughputTest
 * [seconds=60] [durability=async] [accounts=1000000] [waitStrategy=blocking]}.
 * The check at the end fails the run (exit 1) when any transfer was not applied: a run that fails its
 * check is not a number.
 */
public final class PipelineJournaledThroughputTest
{
    private static final int TRY = CurrencyCode.pack("TRY");
    private static final int PUBLISH_BATCH = 64;

    private PipelineJournaledThroughputTest()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        System.setProperty("chronicle.analytics.disable", "true");
        final int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 60;
        final Durability durability = args.length > 1 ? Durability.valueOf(args[1].toUpperCase()) : Durability.ASYNC;
        final int accounts = args.length > 2 ? Integer.parseInt(args[2]) : 1_000_000;
        final WaitStrategyName wait = args.length > 3 ? WaitStrategyName.valueOf(args[3].toUpperCase()) : WaitStrategyName.BLOCKING;

        final Path dir = Files.createTempDirectory("tally-pipeline-perf");
        // Short windows and large expiry budgets keep the key and transfer tables at a steady size
        // during a long run at full speed, as a production deployment sized for its rate would.
        final LedgerConfig config = new LedgerConfig(accounts + 1, accounts + 1, 8_000_000, 1, 8_000_000, 1,
            2_000, 2_000, 2_000, LedgerConfig.EXPIRIES_PER_TICK_MAX_LIMIT);
        final Ledger ledger = new Ledger(config);
        final CountingResponder counter = new CountingResponder();
        try (Journal journal = Journal.open(JournalConfig.of(dir.resolve("journal"), durability));
             LedgerPipeline pipeline = new LedgerPipeline(ledger, journal, ring -> counter, UnitListener.NONE,
                 new LedgerPipeline.PipelineConfig(16_384, wait, 100), new PipelineHealth()))
        {
            final InputRing ring = pipeline.ring();
            final Producer producer = new Producer(ring, accounts);
            final long setupStart = System.nanoTime();
            producer.createAccounts();
            counter.awaitAtLeast(accounts + 1);
            System.out.printf("setup: %,d accounts in %,d ms%n", accounts + 1, (System.nanoTime() - setupStart) / 1_000_000);

            final long before = counter.transfersOk.get();
            final long start = System.nanoTime();
            final long end = start + seconds * 1_000_000_000L;
            long nextReport = start + 1_000_000_000L;
            long lastCount = before;
            final long[] perSecond = new long[seconds + 1];
            int second = 0;
            while (System.nanoTime() < end)
            {
                producer.publishTransfers(PUBLISH_BATCH);
                final long now = System.nanoTime();
                if (now >= nextReport)
                {
                    final long count = counter.transfersOk.get();
                    perSecond[second++] = count - lastCount;
                    lastCount = count;
                    nextReport += 1_000_000_000L;
                }
            }
            final long published = producer.transfersPublished;
            counter.awaitTransfers(before + published);
            final double elapsedS = (System.nanoTime() - start) / 1e9;
            final long done = counter.transfersOk.get() - before;
            java.util.Arrays.sort(perSecond, 0, second);
            System.out.printf("durability=%s wait=%s accounts=%,d seconds=%d%n", durability, wait, accounts, seconds);
            System.out.printf("transfers applied: %,d in %.1f s = %,.0f transfers/s (median second %,d/s, min %,d/s, max %,d/s)%n",
                done, elapsedS, done / elapsedS, second > 0 ? perSecond[second / 2] : 0, second > 0 ? perSecond[0] : 0,
                second > 0 ? perSecond[second - 1] : 0);
            System.out.printf("journal index %,d; rejected %,d%n", journal.lastIndex(), counter.rejected.get());
            if (counter.rejected.get() != 0 || done != published)
            {
                System.out.println("CHECK FAILED: not every transfer was applied");
                System.exit(1);
            }
            System.out.println("check=ok");
        }
        finally
        {
            try (Stream<Path> files = Files.walk(dir))
            {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** Publishes pre-built commands; the only producer thread. */
    private static final class Producer
    {
        private final InputRing ring;
        private final int accounts;
        private final int[] debits = new int[1 << 20];
        private final int[] credits = new int[1 << 20];
        private long transfersPublished;
        private long keyCounter;

        Producer(final InputRing ring, final int accounts)
        {
            this.ring = ring;
            this.accounts = accounts;
            final SplittableRandom random = new SplittableRandom(42);
            for (int i = 0; i < debits.length; i++)
            {
                debits[i] = 2 + random.nextInt(accounts);
                final int credit = 2 + random.nextInt(accounts);
                credits[i] = credit == debits[i] ? (credit == accounts + 1 ? 2 : credit + 1) : credit;
            }
        }

        void createAccounts()
        {
            publishAccount(1, true);
            for (int id = 2; id <= accounts + 1; id += PUBLISH_BATCH)
            {
                final int n = Math.min(PUBLISH_BATCH, accounts + 2 - id);
                final long hi = ring.claim(n);
                for (long s = hi - n + 1, id2 = id; s <= hi; s++, id2++)
                {
                    fillAccount(ring.slot(s).reset(EventKind.COMMAND).command, id2, false);
                }
                ring.publish(hi - n + 1, hi);
            }
            // Fund every account from the unconstrained account 1 so transfers never lack funds.
            for (int id = 2; id <= accounts + 1; id += PUBLISH_BATCH)
            {
                final int n = Math.min(PUBLISH_BATCH, accounts + 2 - id);
                final long hi = ring.claim(n);
                for (long s = hi - n + 1, id2 = id; s <= hi; s++, id2++)
                {
                    fillTransfer(ring.slot(s).reset(EventKind.COMMAND).command, 1, id2, 1_000_000_000_00L);
                }
                ring.publish(hi - n + 1, hi);
            }
        }

        private void publishAccount(final long id, final boolean funding)
        {
            final long s = ring.claim(1);
            fillAccount(ring.slot(s).reset(EventKind.COMMAND).command, id, funding);
            ring.publish(s);
        }

        void publishTransfers(final int n)
        {
            final long hi = ring.claim(n);
            for (long s = hi - n + 1; s <= hi; s++)
            {
                final int i = (int)(transfersPublished++ & (debits.length - 1));
                fillTransfer(ring.slot(s).reset(EventKind.COMMAND).command, debits[i], credits[i], 1_00);
            }
            ring.publish(hi - n + 1, hi);
        }

        private void fillAccount(final Command c, final long id, final boolean funding)
        {
            c.type = CommandType.CREATE_ACCOUNT;
            c.tenantId = 1;
            c.keyHi = 0x4143_4354L;
            c.keyLo = ++keyCounter;
            c.fingerprintLo = id;
            c.accountId = id;
            c.currency = TRY;
            c.subBalances = 1;
            c.debitsMustNotExceedCredits = !funding;
        }

        private void fillTransfer(final Command c, final long debit, final long credit, final long amount)
        {
            c.type = CommandType.TRANSFER;
            c.tenantId = 1;
            c.keyHi = 0x5452_4e53L;
            c.keyLo = ++keyCounter;
            c.fingerprintHi = debit;
            c.fingerprintLo = credit ^ (amount << 32);
            c.debitAccountId = debit;
            c.creditAccountId = credit;
            c.amountMinor = amount;
            c.currency = TRY;
        }
    }

    /** Stage 3 stand-in: counts outcomes instead of writing HTTP replies. */
    private static final class CountingResponder implements ResponderStage
    {
        final AtomicLong transfersOk = new AtomicLong();
        final AtomicLong rejected = new AtomicLong();
        private final AtomicLong seen = new AtomicLong();

        @Override
        public void onEvent(final LedgerEvent event, final long sequence, final boolean endOfBatch)
        {
            if (event.kind != EventKind.COMMAND || event.command.type == CommandType.TICK)
            {
                return;
            }
            if (event.journalFailed || event.result.code != ResultCode.OK)
            {
                rejected.incrementAndGet();
            }
            else if (event.command.type == CommandType.TRANSFER && event.command.debitAccountId != 1)
            {
                transfersOk.lazySet(transfersOk.get() + 1);
            }
            seen.lazySet(seen.get() + 1);
        }

        long seen()
        {
            return seen.get();
        }

        void awaitAtLeast(final long count) throws InterruptedException
        {
            while (seen.get() < count)
            {
                Thread.sleep(1);
            }
        }

        void awaitTransfers(final long count) throws InterruptedException
        {
            final long deadline = System.nanoTime() + 60_000_000_000L;
            while (transfersOk.get() + rejected.get() < count && System.nanoTime() < deadline)
            {
                Thread.sleep(1);
            }
        }
    }
}
