package dev.tally.perf.load;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The correctness check after a run, against the live server:
 *
 * <ol>
 *   <li>resolve unknown outcomes (requests that got no reply) by sending them again, same key and
 *       payload: a 201, fresh or replayed, means applied exactly once;</li>
 *   <li>read back the funding account, the hot account and a sample of customers (all of them when few);</li>
 *   <li>each balance must equal setup plus the transfers acknowledged as applied, to the minor unit
 *       (so a replay that moved money, or an applied transfer the client was not told about, shows);</li>
 *   <li>no constrained account, nor any of its sub-balances, below zero available;</li>
 *   <li>an exact count: transfers acknowledged with a fresh 201 × amount == what left (or reached) the
 *       funding or hot account; in {@code retries} every retry was a replay;</li>
 *   <li>when every account was read: the sum of all balances is zero (money conserved).</li>
 * </ol>
 */
final class Checker
{
    private static final int RESOLVE_ATTEMPTS = 5;
    private static final int GETS_PIPELINED = 64;
    private static final int MISMATCHES_SHOWN = 5;

    private final Target target;
    private final LoadSpec spec;
    private final AccountLayout layout;
    private final String keyPrefix;
    private final JsonFactory json = new JsonFactory();

    Checker(final Target target, final LoadSpec spec, final AccountLayout layout, final String keyPrefix)
    {
        this.target = target;
        this.spec = spec;
        this.layout = layout;
        this.keyPrefix = keyPrefix;
    }

    /** Runs every check on the outcomes of a finished run. */
    CheckReport check(final Outcomes outcomes) throws IOException
    {
        final CheckReport report = new CheckReport();
        try (BlockingHttp http = new BlockingHttp(target))
        {
            resolveUnknown(http, outcomes, report);
            final int[] indexes = accountsToRead();
            final List<AccountState> states = read(http, indexes);
            checkBalances(states, outcomes, report);
            checkCounts(states, outcomes, report, indexes.length == layout.accounts());
        }
        return report;
    }

    private void resolveUnknown(final BlockingHttp http, final Outcomes outcomes, final CheckReport report) throws IOException
    {
        report.expect(!outcomes.unknownOverflow(), "fewer than " + Outcomes.UNKNOWN_MAX + " requests with an unknown outcome");
        final long[] unknown = outcomes.unknownKeySeqs();
        if (unknown.length == 0)
        {
            return;
        }
        final RequestSource source = new RequestSource(spec, layout, new RequestTemplate(target.hostPort(), target.apiKey(), keyPrefix,
            AccountLayout.major(AccountLayout.AMOUNT_MINOR), AccountLayout.CURRENCY, spec.references(), spec.metadata()), outcomes, 0, 1);
        int unresolved = 0;
        for (final long keySeq : unknown)
        {
            final ByteBuf buffer = Unpooled.buffer(source.requestLengthMax());
            source.write(buffer, keySeq);
            final byte[] request = ByteBufUtil.getBytes(buffer);
            boolean resolved = false;
            for (int attempt = 0; attempt < RESOLVE_ATTEMPTS && !resolved; attempt++)
            {
                final BlockingHttp.Reply reply = http.exchange(request);
                resolved = source.onResolution(keySeq, reply.status(), reply.body());
            }
            unresolved += resolved ? 0 : 1;
        }
        outcomes.clearUnknown();
        report.expect(unresolved == 0, String.format(Locale.ROOT,
            "%,d requests without a reply resolved by sending them again with the same key (%,d still unknown)", unknown.length, unresolved));
    }

    /** @return the account indexes to read: funding, hot, and a sample of customers (or all). */
    private int[] accountsToRead()
    {
        if (spec.checkSample() >= layout.customers())
        {
            final int[] all = new int[layout.accounts()];
            for (int i = 0; i < all.length; i++)
            {
                all[i] = i;
            }
            return all;
        }
        final List<Integer> chosen = new ArrayList<>();
        chosen.add(AccountLayout.FUNDING_INDEX);
        if (layout.hotIndex() >= 0)
        {
            chosen.add(layout.hotIndex());
        }
        final java.util.BitSet taken = new java.util.BitSet(layout.accounts());
        final SplittableRandom random = new SplittableRandom(spec.seed() ^ 0x5EED);
        final int wanted = chosen.size() + spec.checkSample();
        while (chosen.size() < wanted)
        {
            final int index = 1 + random.nextInt(layout.customers());
            if (!taken.get(index))
            {
                taken.set(index);
                chosen.add(index);
            }
        }
        return chosen.stream().mapToInt(Integer::intValue).toArray();
    }

    private List<AccountState> read(final BlockingHttp http, final int[] indexes) throws IOException
    {
        final List<AccountState> states = new ArrayList<>(indexes.length);
        final ArrayDeque<Integer> inFlight = new ArrayDeque<>();
        for (final int index : indexes)
        {
            http.write(http.request("GET", "/v1/accounts/" + layout.id(index), null, null));
            inFlight.add(index);
            if (inFlight.size() == GETS_PIPELINED)
            {
                states.add(parse(inFlight.poll(), http.read()));
            }
        }
        while (!inFlight.isEmpty())
        {
            states.add(parse(inFlight.poll(), http.read()));
        }
        return states;
    }

    private void checkBalances(final List<AccountState> states, final Outcomes outcomes, final CheckReport report)
    {
        final List<String> mismatches = new ArrayList<>();
        final List<String> negatives = new ArrayList<>();
        int constrainedCount = 0;
        for (final AccountState state : states)
        {
            final long expected = layout.setupPostedMinor(state.index) + outcomes.deltaMinor(state.index);
            if (state.postedMinor != expected && mismatches.size() < MISMATCHES_SHOWN)
            {
                mismatches.add(String.format(Locale.ROOT, "account %d posted %s, expected %s", layout.id(state.index),
                    AccountLayout.major(state.postedMinor), AccountLayout.major(expected)));
            }
            if (layout.constrained(state.index))
            {
                constrainedCount++;
                if (state.availableMinor < 0 || state.lowestSubAvailableMinor < 0)
                {
                    negatives.add(String.format(Locale.ROOT, "account %d available %s, lowest sub-balance %s", layout.id(state.index),
                        AccountLayout.major(state.availableMinor), AccountLayout.major(state.lowestSubAvailableMinor)));
                }
            }
        }
        report.expect(mismatches.isEmpty(), String.format(Locale.ROOT,
            "balances of %,d accounts (funding%s, %,d customers) equal setup + acknowledged transfers to the minor unit%s",
            states.size(), layout.hotIndex() >= 0 ? ", hot" : "", states.size() - 1 - (layout.hotIndex() >= 0 ? 1 : 0),
            mismatches.isEmpty() ? "" : ": " + mismatches));
        report.expect(negatives.isEmpty(), String.format(Locale.ROOT,
            "no negative available balance on %,d constrained accounts, nor on any of their sub-balances%s", constrainedCount,
            negatives.isEmpty() ? "" : ": " + negatives.subList(0, Math.min(MISMATCHES_SHOWN, negatives.size()))));
    }

    private void checkCounts(final List<AccountState> states, final Outcomes outcomes, final CheckReport report, final boolean allRead)
    {
        final long moved = outcomes.appliedTransfers * AccountLayout.AMOUNT_MINOR;
        final AccountState funding = find(states, AccountLayout.FUNDING_INDEX);
        switch (spec.scenario())
        {
            case RETRIES:
                final long left = layout.setupPostedMinor(AccountLayout.FUNDING_INDEX) - funding.postedMinor;
                report.expect(left == moved, String.format(Locale.ROOT,
                    "what left the funding account (%s) == keys acknowledged as applied (%,d) x amount (%s)",
                    AccountLayout.major(left), outcomes.appliedTransfers, AccountLayout.major(moved)));
                report.expect(outcomes.retriesAppliedAgain == 0 && outcomes.expectedReplays > 0, String.format(Locale.ROOT,
                    "every retry of an acknowledged key was a replay that moved no money (%,d replays, %,d applied again)",
                    outcomes.expectedReplays, outcomes.retriesAppliedAgain));
                break;
            case HOT_CREDIT:
                final long received = find(states, layout.hotIndex()).postedMinor;
                report.expect(received == moved, String.format(Locale.ROOT,
                    "what reached the hot account (%s) == transfers acknowledged as applied (%,d) x amount (%s)",
                    AccountLayout.major(received), outcomes.appliedTransfers, AccountLayout.major(moved)));
                break;
            case HOT_DEBIT:
                final long paid = layout.setupPostedMinor(layout.hotIndex()) - find(states, layout.hotIndex()).postedMinor;
                report.expect(paid == moved, String.format(Locale.ROOT,
                    "what left the hot account (%s) == transfers acknowledged as applied (%,d) x amount (%s)",
                    AccountLayout.major(paid), outcomes.appliedTransfers, AccountLayout.major(moved)));
                break;
            case COLD_RETRIES:
                report.expect(outcomes.retriesAppliedAgain == 0, String.format(Locale.ROOT,
                    "every retry of a key memory let go was a replay that moved no money (%,d replays, %,d applied again)",
                    outcomes.expectedReplays, outcomes.retriesAppliedAgain));
                report.expect(funding.postedMinor == layout.setupPostedMinor(AccountLayout.FUNDING_INDEX),
                    "the funding account moved only during setup (" + AccountLayout.major(funding.postedMinor) + ")");
                break;
            case UNIFORM:
            case BATCH:
            default:
                report.expect(funding.postedMinor == layout.setupPostedMinor(AccountLayout.FUNDING_INDEX),
                    "the funding account moved only during setup (" + AccountLayout.major(funding.postedMinor) + ")");
                break;
        }
        report.expect(outcomes.unexpectedReplays == 0, String.format(Locale.ROOT,
            "no fresh key answered as a replay (%,d)", outcomes.unexpectedReplays));
        report.expect(outcomes.appliedTransfers > 0, String.format(Locale.ROOT,
            "transfers were applied (%,d)", outcomes.appliedTransfers));
        if (allRead)
        {
            long sum = 0;
            for (final AccountState state : states)
            {
                sum += state.postedMinor;
            }
            report.expect(sum == 0, "money conserved: the balances of all " + states.size() + " accounts sum to " + AccountLayout.major(sum));
        }
    }

    private static AccountState find(final List<AccountState> states, final int index)
    {
        for (final AccountState state : states)
        {
            if (state.index == index)
            {
                return state;
            }
        }
        throw new IllegalStateException("account index " + index + " was not read");
    }

    private AccountState parse(final int index, final BlockingHttp.Reply reply) throws IOException
    {
        if (reply.status() != 200)
        {
            throw new IOException("GET account " + layout.id(index) + " answered " + reply.status() + ": " + reply.text());
        }
        final AccountState state = new AccountState(index);
        try (JsonParser parser = json.createParser(reply.body()))
        {
            parser.nextToken();
            while (parser.nextToken() == JsonToken.FIELD_NAME)
            {
                final String name = parser.currentName();
                final JsonToken value = parser.nextToken();
                if ("subBalanceDetail".equals(name))
                {
                    readSubBalances(parser, state);
                }
                else if (value == JsonToken.START_OBJECT || value == JsonToken.START_ARRAY)
                {
                    parser.skipChildren();
                }
                else if ("posted".equals(name))
                {
                    state.postedMinor = AccountLayout.minor(parser.getText());
                }
                else if ("available".equals(name))
                {
                    state.availableMinor = AccountLayout.minor(parser.getText());
                }
            }
        }
        return state;
    }

    private static void readSubBalances(final JsonParser parser, final AccountState state) throws IOException
    {
        while (parser.nextToken() == JsonToken.START_OBJECT)
        {
            while (parser.nextToken() == JsonToken.FIELD_NAME)
            {
                final String name = parser.currentName();
                parser.nextToken();
                if ("available".equals(name))
                {
                    state.lowestSubAvailableMinor = Math.min(state.lowestSubAvailableMinor, AccountLayout.minor(parser.getText()));
                }
            }
        }
    }

    /** One account as the server reported it. */
    private static final class AccountState
    {
        final int index;
        long postedMinor = Long.MIN_VALUE;
        long availableMinor = Long.MIN_VALUE;
        long lowestSubAvailableMinor = Long.MAX_VALUE;

        AccountState(final int index)
        {
            this.index = index;
        }
    }
}
