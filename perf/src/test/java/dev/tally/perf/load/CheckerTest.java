package dev.tally.perf.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tally.perf.peer.PeerConfig;
import dev.tally.perf.peer.PeerServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The load generator's correctness check must fail when the server's state breaks what it checks. The server is the
 * PostgreSQL-per-request peer (a target the check runs against in {@code compare}): one real setup and one second of
 * the retries scenario, then each test breaks one property in the peer's own PostgreSQL tables (or through its API
 * with an idempotency record lost) and runs the {@link Checker} on the run's real outcomes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CheckerTest
{
    private static final String KEY = "checker-test-secret";
    private static final Pattern POSTGRES_PORT = Pattern.compile("PostgreSQL \\S+ on port (\\d+)");

    private final HttpClient http = HttpClient.newHttpClient();
    private PeerServer peer;
    private Target target;
    private String jdbcUrl;
    private LoadSpec spec;
    private AccountLayout layout;
    private String keyPrefix;
    private Outcomes outcomes;
    /** Every account's balance after the run, as the check found it correct: restored after each test. */
    private final Map<Long, Long> balancesAfterRun = new LinkedHashMap<>();

    @BeforeAll
    void runTheRetriesScenarioOnThePeer() throws Exception
    {
        peer = new PeerServer(PeerConfig.defaults(false, "t1:" + KEY).withPoolSize(2));
        final Matcher port = POSTGRES_PORT.matcher(peer.describe());
        assertTrue(port.find(), peer.describe());
        jdbcUrl = "jdbc:postgresql://localhost:" + port.group(1) + "/postgres?user=postgres";
        target = new Target(Target.LOOPBACK, peer.port(), KEY);
        // Every account read back (check sample >= customers), so the sum of all balances is checked too.
        spec = new LoadSpec(Scenario.RETRIES, Mode.CLOSED, 2, 1, 0, 1, 0, 12, 50, 16, true, 12, 1, 1, 5);
        layout = new AccountLayout(spec, 4_242);
        keyPrefix = "C" + System.nanoTime() + "-";
        new Setup(target, spec, layout, keyPrefix).run(System.out);
        outcomes = new LoadGenerator(spec, target, layout, keyPrefix, RunHooks.NONE).run().outcomes;
        try (Connection sql = DriverManager.getConnection(jdbcUrl); Statement read = sql.createStatement();
             ResultSet rows = read.executeQuery("SELECT id, balance FROM accounts ORDER BY id"))
        {
            while (rows.next())
            {
                balancesAfterRun.put(rows.getLong(1), rows.getLong(2));
            }
        }
        assertEquals(layout.accounts(), balancesAfterRun.size());
    }

    @AfterAll
    void stopThePeer()
    {
        if (peer != null)
        {
            peer.close();
        }
    }

    @AfterEach
    void restoreTheBalancesAndTheGuard() throws SQLException
    {
        try (Connection sql = DriverManager.getConnection(jdbcUrl);
             PreparedStatement update = sql.prepareStatement("UPDATE accounts SET balance = ? WHERE id = ?"))
        {
            for (final Map.Entry<Long, Long> account : balancesAfterRun.entrySet())
            {
                update.setLong(1, account.getValue());
                update.setLong(2, account.getKey());
                update.executeUpdate();
            }
            try (Statement ddl = sql.createStatement())
            {
                ddl.execute("ALTER TABLE accounts DROP CONSTRAINT IF EXISTS accounts_balance_guard");
                ddl.execute("ALTER TABLE accounts ADD CONSTRAINT accounts_balance_guard CHECK (balance >= 0 OR NOT constrained)");
            }
        }
    }

    @Test
    void shouldPassOnTheStateTheRunLeft() throws Exception
    {
        final CheckReport report = check();

        assertTrue(report.ok(), report.failures()::toString);
        assertTrue(outcomes.appliedTransfers > 0 && outcomes.expectedReplays > 0, "the run applied and retried keys");
    }

    @Test
    void shouldFailWhenABalanceDiffersFromSetupPlusTheAcknowledgedTransfers() throws Exception
    {
        final long from = customerWithMostMoney();
        final long to = otherCustomerThan(from);
        move(from, to, 100);   // 1.00 between two customers: money conserved, nobody below zero, two balances wrong

        final CheckReport report = check();

        assertFailures(report, "balances of 12 accounts");
        assertNamed(report, "balances of", "account " + from + " posted", "account " + to + " posted");
    }

    @Test
    void shouldFailWhenAConstrainedAccountIsBelowZero() throws Exception
    {
        execute("ALTER TABLE accounts DROP CONSTRAINT accounts_balance_guard");   // the peer's last line of defence gone
        final long overdrawn = customerWithMostMoney();
        final long to = otherCustomerThan(overdrawn);
        move(overdrawn, to, balancesAfterRun.get(overdrawn) + 100);   // overdrawn by 1.00; the money went to another customer

        final CheckReport report = check();

        assertFailures(report, "balances of 12 accounts", "no negative available balance on 11 constrained accounts");
        assertNamed(report, "no negative available balance", "account " + overdrawn + " available -1.00");
    }

    @Test
    void shouldFailWhenMoneyIsNotConserved() throws Exception
    {
        final long credited = customerWithMostMoney();
        execute("UPDATE accounts SET balance = balance + 100 WHERE id = " + credited);   // 1.00 out of nowhere

        final CheckReport report = check();

        assertFailures(report, "balances of 12 accounts", "money conserved");
        assertNamed(report, "money conserved", "sum to 1.00");
    }

    @Test
    void shouldFailWhenAnAcknowledgedKeyIsAppliedASecondTime() throws Exception
    {
        // A transfer of the run whose idempotency record the peer loses: the same key and payload again is applied again.
        final String key;
        final long debit;
        final long credit;
        try (Connection sql = DriverManager.getConnection(jdbcUrl); Statement read = sql.createStatement();
             ResultSet rows = read.executeQuery("SELECT k.idem_key, d.account_id, c.account_id FROM idempotency_keys k " +
                 "JOIN ledger_entries d ON d.transfer_id = k.transfer_id AND d.amount_minor < 0 " +
                 "JOIN ledger_entries c ON c.transfer_id = k.transfer_id AND c.amount_minor > 0 " +
                 "WHERE k.operation = 'transfer' AND k.response_code = 201 ORDER BY k.idem_key LIMIT 1"))
        {
            assertTrue(rows.next(), "the run applied a transfer");
            key = rows.getString(1);
            debit = rows.getLong(2);
            credit = rows.getLong(3);
        }
        execute("DELETE FROM idempotency_keys WHERE idem_key = '" + key + "'");
        final HttpResponse<String> again = http.send(HttpRequest.newBuilder(URI.create("http://" + target.hostPort() + "/v1/transfers"))
            .header("Authorization", "Bearer " + KEY).header("Idempotency-Key", key).header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString("{\"debitAccountId\":" + debit + ",\"creditAccountId\":" + credit +
                ",\"amount\":\"1.00\",\"currency\":\"TRY\"}")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(201, again.statusCode(), again.body());
        assertTrue(again.headers().firstValue("Idempotent-Replayed").isEmpty(), "applied afresh, not replayed");

        final CheckReport report = check();

        assertFailures(report, "balances of 12 accounts", "what left the funding account");
        assertNamed(report, "what left the funding account", "keys acknowledged as applied (" + outcomes.appliedTransfers + ")");
        assertNamed(report, "balances of", "account " + debit + " posted", "account " + credit + " posted");
    }

    private CheckReport check() throws Exception
    {
        return new Checker(target, spec, layout, keyPrefix).check(outcomes);
    }

    /** The report failed exactly the properties whose messages start with these, and no other. */
    private static void assertFailures(final CheckReport report, final String... starts)
    {
        final List<String> failed = new ArrayList<>();
        for (final String failure : report.failures())
        {
            for (final String start : starts)
            {
                if (failure.startsWith(start))
                {
                    failed.add(start);
                }
            }
        }
        assertEquals(List.of(starts), failed, report.failures()::toString);
        assertEquals(starts.length, report.failures().size(), report.failures()::toString);
    }

    /** The failure that starts with {@code start} names each of {@code parts}. */
    private static void assertNamed(final CheckReport report, final String start, final String... parts)
    {
        final String failure = report.failures().stream().filter(f -> f.startsWith(start)).findFirst().orElseThrow();
        for (final String part : parts)
        {
            assertTrue(failure.contains(part), () -> "'" + part + "' in: " + failure);
        }
    }

    private long customerWithMostMoney()
    {
        long best = layout.id(1);
        for (int index = 1; index <= layout.customers(); index++)
        {
            if (balancesAfterRun.get(layout.id(index)) > balancesAfterRun.get(best))
            {
                best = layout.id(index);
            }
        }
        assertTrue(balancesAfterRun.get(best) >= 100, "a customer received at least 1.00");
        return best;
    }

    private long otherCustomerThan(final long id)
    {
        return id == layout.id(1) ? layout.id(2) : layout.id(1);
    }

    private void move(final long from, final long to, final long minor) throws SQLException
    {
        execute("UPDATE accounts SET balance = balance - " + minor + " WHERE id = " + from);
        execute("UPDATE accounts SET balance = balance + " + minor + " WHERE id = " + to);
    }

    private void execute(final String statement) throws SQLException
    {
        try (Connection sql = DriverManager.getConnection(jdbcUrl); Statement run = sql.createStatement())
        {
            run.execute(statement);
        }
    }
}
