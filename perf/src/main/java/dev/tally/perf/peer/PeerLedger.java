package dev.tally.perf.peer;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;

/**
 * The peer's business logic: every call is ONE PostgreSQL transaction on a connection borrowed from the
 * pool by the calling JDBC thread. Thread-safe (no state but the configuration).
 *
 * <p>Retries: a transaction that PostgreSQL aborted for a reason that says nothing about the request
 * (deadlock, serialization failure, or the rare race on a reference, where two new keys carry the same
 * reference and the second hits the unique index) is run again, up to {@value #ATTEMPTS_MAX} times, as any
 * production service would.
 */
final class PeerLedger
{
    private static final int ATTEMPTS_MAX = 3;
    private static final String SQLSTATE_UNIQUE_VIOLATION = "23505";
    private static final String SQLSTATE_DEADLOCK = "40P01";
    private static final String SQLSTATE_SERIALIZATION = "40001";

    private static final String CALL_TRANSFER = "SELECT status_code, body, replayed FROM peer_transfer(?,?,?,?::uuid,?,?,?,?,?,?,?,?)";
    private static final String CALL_ACCOUNT = "SELECT status_code, body, replayed FROM peer_create_account(?,?,?,?,?,?,?,?,?)";
    private static final String CALL_ACCOUNTS = "SELECT status_code, body, replayed FROM peer_create_accounts(?,?,?,?,?,?,?,?,?)";
    private static final String CALL_TRANSFERS = "SELECT status_code, body, replayed FROM peer_transfers(?,?,?,?,?,?,?,?,?,?,?,?)";
    private static final String READ_ACCOUNT = "SELECT tenant_id, currency, constrained, balance FROM accounts WHERE id = ? ORDER BY slot";

    // The STATEMENTS path: the same steps as peer_transfer, one prepared statement each.
    private static final String CLAIM_KEY =
        "INSERT INTO idempotency_keys (tenant_id, idem_key, operation, fingerprint, status, response_code, response_body, transfer_id, created_at) " +
        "VALUES (?, ?, 'transfer', ?, 'completed', 201, ?, ?::uuid, ?) ON CONFLICT (tenant_id, idem_key) DO NOTHING RETURNING true";
    private static final String STORED = "SELECT status_code, body, replayed FROM peer_stored(?, ?, ?)";
    private static final String FIND_REFERENCE =
        "SELECT transfer_id FROM ledger_entries WHERE tenant_id = ? AND reference = ? AND amount_minor < 0";
    private static final String STORE_RESPONSE =
        "UPDATE idempotency_keys SET response_code = ?, response_body = ?, transfer_id = NULL WHERE tenant_id = ? AND idem_key = ?";
    private static final String INSERT_ROWS =
        "WITH entries AS (INSERT INTO ledger_entries (transfer_id, tenant_id, account_id, amount_minor, currency, reference, created_at) " +
        "VALUES (?::uuid, ?, ?, ?, ?, ?, ?), (?::uuid, ?, ?, ?, ?, ?, ?) RETURNING ctid), " +
        "event AS (INSERT INTO outbox (aggregate_id, event_type, payload, created_at) VALUES (?::uuid, 'transfer.posted', ?::jsonb, ?) RETURNING ctid) " +
        "SELECT (SELECT array_agg(ctid)::text FROM entries), (SELECT ctid::text FROM event)";
    private static final String DEBIT =
        "UPDATE accounts SET balance = balance - ? WHERE id = ? AND slot = mod(peer_key_hash(?), slots) AND tenant_id = ? AND currency = ? " +
        "AND (balance >= ? OR NOT constrained) RETURNING slot";
    private static final String DEBIT_OTHER_SLOTS = "SELECT peer_debit_other_slots(?, ?, ?, ?, peer_key_hash(?))";
    private static final String CREDIT =
        "UPDATE accounts SET balance = balance + ? WHERE id = ? AND slot = mod(peer_key_hash(?), slots) AND tenant_id = ? AND currency = ? " +
        "RETURNING slot";
    private static final String UNDO = "UPDATE accounts SET balance = balance + ? WHERE id = ? AND slot = ?";
    private static final String REJECT = "SELECT status_code, body FROM peer_reject(?, ?, ?, ?, ?, ?, ?::tid[], ?::tid)";

    private final TransferPath path;
    private final HotRows hotRows;

    PeerLedger(final TransferPath path, final HotRows hotRows)
    {
        this.path = path;
        this.hotRows = hotRows;
    }

    /** A transfer, prepared on the I/O thread: everything the transaction needs, rendered once. */
    record PreparedTransfer(long tenantId, String key, TransferRequest request, byte[] fingerprint, UUID transferId, long createdAtMs,
        String successBody)
    {
        static PreparedTransfer of(final long tenantId, final String key, final TransferRequest request, final long nowMs)
        {
            final UUID id = TransferRequest.uuid7(nowMs);
            return new PreparedTransfer(tenantId, key, request, request.fingerprint(), id, nowMs, request.successBody(id, nowMs));
        }
    }

    /** A stored (or just stored) response: its status, body and whether it was a replay; body null for a key reuse. */
    record Outcome(int status, String body, boolean replayed)
    {
        PeerReply reply()
        {
            if (body == null)
            {
                return PeerProblem.IDEMPOTENCY_KEY_REUSED.reply("this Idempotency-Key was already used with a different request", null);
            }
            return PeerReply.stored(status, body, replayed);
        }
    }

    /** Runs one transfer in one transaction (retried on deadlock, serialization failure or a reference race). */
    Outcome transfer(final Connection connection, final PreparedTransfer transfer) throws SQLException
    {
        for (int attempt = 1; ; attempt++)
        {
            try
            {
                return path == TransferPath.FUNCTION ? transferByFunction(connection, transfer) : transferByStatements(connection, transfer);
            }
            catch (final SQLException ex)
            {
                if (!connection.getAutoCommit())
                {
                    connection.rollback();
                }
                if (attempt == ATTEMPTS_MAX || !isRetryable(ex.getSQLState()))
                {
                    throw ex;
                }
            }
        }
    }

    private static boolean isRetryable(final String sqlState)
    {
        return SQLSTATE_DEADLOCK.equals(sqlState) || SQLSTATE_SERIALIZATION.equals(sqlState) || SQLSTATE_UNIQUE_VIOLATION.equals(sqlState);
    }

    private static Outcome transferByFunction(final Connection connection, final PreparedTransfer t) throws SQLException
    {
        try (PreparedStatement call = connection.prepareStatement(CALL_TRANSFER))
        {
            final TransferRequest r = t.request();
            call.setLong(1, t.tenantId());
            call.setString(2, t.key());
            call.setBytes(3, t.fingerprint());
            call.setString(4, t.transferId().toString());
            call.setLong(5, r.debitAccountId());
            call.setLong(6, r.creditAccountId());
            call.setLong(7, r.amountMinor());
            call.setString(8, r.currency());
            call.setString(9, r.reference());
            call.setTimestamp(10, new Timestamp(t.createdAtMs()));
            call.setString(11, t.successBody());
            call.setString(12, r.amountText());
            return single(call);
        }
    }

    /**
     * The same transaction as {@code peer_transfer}, step by step from the client: claim, rows, the two
     * balance updates in ascending account id order, COMMIT. Rejections (rare) undo the first update and
     * store their response through {@code peer_reject}, shared with the function path.
     */
    private static Outcome transferByStatements(final Connection connection, final PreparedTransfer t) throws SQLException
    {
        final TransferRequest r = t.request();
        final Timestamp createdAt = new Timestamp(t.createdAtMs());
        // 1. claim
        try (PreparedStatement claim = connection.prepareStatement(CLAIM_KEY))
        {
            claim.setLong(1, t.tenantId());
            claim.setString(2, t.key());
            claim.setBytes(3, t.fingerprint());
            claim.setString(4, t.successBody());
            claim.setString(5, t.transferId().toString());
            claim.setTimestamp(6, createdAt);
            try (ResultSet rows = claim.executeQuery())
            {
                if (!rows.next())
                {
                    // 2. taken: read the stored response
                    try (PreparedStatement stored = connection.prepareStatement(STORED))
                    {
                        stored.setLong(1, t.tenantId());
                        stored.setString(2, t.key());
                        stored.setBytes(3, t.fingerprint());
                        final Outcome outcome = single(stored);
                        connection.commit();
                        return outcome;
                    }
                }
            }
        }
        // 3. reference
        if (r.reference() != null)
        {
            final Outcome duplicate = duplicateReference(connection, t);
            if (duplicate != null)
            {
                connection.commit();
                return duplicate;
            }
        }
        // 4. ledger rows and outbox row, before the row locks
        final String entryRows;
        final String eventRow;
        try (PreparedStatement insert = connection.prepareStatement(INSERT_ROWS))
        {
            int i = 1;
            i = entryParameters(insert, i, t, r.debitAccountId(), -r.amountMinor(), createdAt);
            i = entryParameters(insert, i, t, r.creditAccountId(), r.amountMinor(), createdAt);
            insert.setString(i++, t.transferId().toString());
            insert.setString(i++, t.successBody());
            insert.setTimestamp(i, createdAt);
            try (ResultSet rows = insert.executeQuery())
            {
                rows.next();
                entryRows = rows.getString(1);
                eventRow = rows.getString(2);
            }
        }
        // 5. balances, lower id first, each on one slot row
        final boolean debitFirst = r.debitAccountId() < r.creditAccountId();
        final int firstSlot = debitFirst ? debit(connection, t) : credit(connection, t);
        if (firstSlot < 0)
        {
            return rejectAndCommit(connection, t, entryRows, eventRow);
        }
        if ((debitFirst ? credit(connection, t) : debit(connection, t)) < 0)
        {
            // 6. undo the first move, still under our row lock
            try (PreparedStatement undo = connection.prepareStatement(UNDO))
            {
                undo.setLong(1, debitFirst ? r.amountMinor() : -r.amountMinor());
                undo.setLong(2, debitFirst ? r.debitAccountId() : r.creditAccountId());
                undo.setInt(3, firstSlot);
                undo.executeUpdate();
            }
            return rejectAndCommit(connection, t, entryRows, eventRow);
        }
        connection.commit();
        return new Outcome(201, t.successBody(), false);
    }

    private static int entryParameters(final PreparedStatement insert, final int from, final PreparedTransfer t, final long accountId,
        final long amountMinor, final Timestamp createdAt) throws SQLException
    {
        int i = from;
        insert.setString(i++, t.transferId().toString());
        insert.setLong(i++, t.tenantId());
        insert.setLong(i++, accountId);
        insert.setLong(i++, amountMinor);
        insert.setString(i++, t.request().currency());
        insert.setString(i++, t.request().reference());
        insert.setTimestamp(i++, createdAt);
        return i;
    }

    /** @return the slot the guarded debit took the amount from (its key's slot, else the first other slot that could pay); -1 for none. */
    private static int debit(final Connection connection, final PreparedTransfer t) throws SQLException
    {
        final TransferRequest r = t.request();
        try (PreparedStatement update = connection.prepareStatement(DEBIT))
        {
            update.setLong(1, r.amountMinor());
            update.setLong(2, r.debitAccountId());
            update.setString(3, t.key());
            update.setLong(4, t.tenantId());
            update.setString(5, r.currency());
            update.setLong(6, r.amountMinor());
            final int slot = slotOrMinusOne(update);
            if (slot >= 0)
            {
                return slot;
            }
        }
        try (PreparedStatement others = connection.prepareStatement(DEBIT_OTHER_SLOTS))
        {
            others.setLong(1, t.tenantId());
            others.setLong(2, r.debitAccountId());
            others.setString(3, r.currency());
            others.setLong(4, r.amountMinor());
            others.setString(5, t.key());
            return slotOrMinusOne(others);
        }
    }

    /** @return the slot credited (its key's slot); -1 when the account is not there for this tenant and currency. */
    private static int credit(final Connection connection, final PreparedTransfer t) throws SQLException
    {
        final TransferRequest r = t.request();
        try (PreparedStatement update = connection.prepareStatement(CREDIT))
        {
            update.setLong(1, r.amountMinor());
            update.setLong(2, r.creditAccountId());
            update.setString(3, t.key());
            update.setLong(4, t.tenantId());
            update.setString(5, r.currency());
            return slotOrMinusOne(update);
        }
    }

    private static int slotOrMinusOne(final PreparedStatement statement) throws SQLException
    {
        try (ResultSet rows = statement.executeQuery())
        {
            if (!rows.next())
            {
                return -1;
            }
            final int slot = rows.getInt(1);
            return rows.wasNull() ? -1 : slot;
        }
    }

    private static Outcome duplicateReference(final Connection connection, final PreparedTransfer t) throws SQLException
    {
        final String existing;
        try (PreparedStatement find = connection.prepareStatement(FIND_REFERENCE))
        {
            find.setLong(1, t.tenantId());
            find.setString(2, t.request().reference());
            try (ResultSet rows = find.executeQuery())
            {
                if (!rows.next())
                {
                    return null;
                }
                existing = rows.getString(1);
            }
        }
        final StringBuilder body = new StringBuilder(256).append(
            "{\"type\":\"https://tally.dev/problems/duplicate-reference\",\"title\":\"Duplicate reference\",\"status\":409," +
            "\"detail\":\"another transfer already uses this reference\",\"existingTransferId\":\"").append(existing).append("\",\"reference\":");
        PeerJson.string(body, t.request().reference());
        final String text = body.append('}').toString();
        try (PreparedStatement store = connection.prepareStatement(STORE_RESPONSE))
        {
            store.setInt(1, 409);
            store.setString(2, text);
            store.setLong(3, t.tenantId());
            store.setString(4, t.key());
            store.executeUpdate();
        }
        return new Outcome(409, text, false);
    }

    private static Outcome rejectAndCommit(final Connection connection, final PreparedTransfer t, final String entryRows, final String eventRow)
        throws SQLException
    {
        final TransferRequest r = t.request();
        try (PreparedStatement reject = connection.prepareStatement(REJECT))
        {
            reject.setLong(1, t.tenantId());
            reject.setString(2, t.key());
            reject.setLong(3, r.debitAccountId());
            reject.setLong(4, r.creditAccountId());
            reject.setString(5, r.currency());
            reject.setString(6, r.amountText());
            reject.setString(7, entryRows);
            reject.setString(8, eventRow);
            try (ResultSet rows = reject.executeQuery())
            {
                rows.next();
                final Outcome outcome = new Outcome(rows.getInt(1), rows.getString(2), false);
                connection.commit();
                return outcome;
            }
        }
    }

    /** Creates one account in one transaction. */
    Outcome createAccount(final Connection connection, final long tenantId, final String key, final AccountRequest request, final long nowMs)
        throws SQLException
    {
        try (PreparedStatement call = connection.prepareStatement(CALL_ACCOUNT))
        {
            call.setLong(1, tenantId);
            call.setString(2, key);
            call.setBytes(3, request.fingerprint());
            call.setLong(4, request.id());
            call.setString(5, request.currency());
            call.setBoolean(6, request.constrained());
            call.setInt(7, hotRows.rowsOf(request.subBalances()));
            call.setTimestamp(8, new Timestamp(nowMs));
            call.setString(9, request.successBody(nowMs, hotRows.rowsOf(request.subBalances())));
            final Outcome outcome = single(call);
            commitUnlessAuto(connection);
            return outcome;
        }
    }

    /** One operation of a batch. */
    record BatchOperation(String key, AccountRequest account, TransferRequest transfer)
    {
    }

    /**
     * A batch request's operations in ONE transaction, non-atomic (each operation its own result), runs of the
     * same kind in one round trip ({@code peer_create_accounts}, {@code peer_transfers}). A batch of one kind is
     * one call, which in autocommit mode is its own transaction; a mixed batch runs its calls inside one explicit
     * transaction. Retried whole on a deadlock, a serialization failure or a reference race, as a single transfer.
     */
    List<Outcome> batch(final Connection connection, final long tenantId, final List<BatchOperation> operations, final long nowMs)
        throws SQLException
    {
        final boolean explicit = connection.getAutoCommit() && runCount(operations) > 1;
        if (explicit)
        {
            connection.setAutoCommit(false);
        }
        try
        {
            for (int attempt = 1; ; attempt++)
            {
                try
                {
                    return batchOnce(connection, tenantId, operations, nowMs);
                }
                catch (final SQLException ex)
                {
                    if (!connection.getAutoCommit())
                    {
                        connection.rollback();
                    }
                    if (attempt == ATTEMPTS_MAX || !isRetryable(ex.getSQLState()))
                    {
                        throw ex;
                    }
                }
            }
        }
        finally
        {
            if (explicit)
            {
                connection.setAutoCommit(true);
            }
        }
    }

    private static int runCount(final List<BatchOperation> operations)
    {
        int runs = 0;
        for (int i = 0; i < operations.size(); i++)
        {
            if (i == 0 || (operations.get(i).account() != null) != (operations.get(i - 1).account() != null))
            {
                runs++;
            }
        }
        return runs;
    }

    private List<Outcome> batchOnce(final Connection connection, final long tenantId, final List<BatchOperation> operations, final long nowMs)
        throws SQLException
    {
        final List<Outcome> outcomes = new ArrayList<>(operations.size());
        int from = 0;
        while (from < operations.size())
        {
            final boolean accounts = operations.get(from).account() != null;
            int to = from;
            while (to < operations.size() && (operations.get(to).account() != null) == accounts)
            {
                to++;
            }
            final List<BatchOperation> run = operations.subList(from, to);
            outcomes.addAll(accounts ? accountRun(connection, tenantId, run, nowMs) : transferRun(connection, tenantId, run, nowMs));
            from = to;
        }
        commitUnlessAuto(connection);
        return outcomes;
    }

    private List<Outcome> accountRun(final Connection connection, final long tenantId, final List<BatchOperation> run, final long nowMs)
        throws SQLException
    {
        final int n = run.size();
        final String[] keys = new String[n];
        final String[] fingerprints = new String[n];
        final Long[] ids = new Long[n];
        final String[] currencies = new String[n];
        final Boolean[] constrained = new Boolean[n];
        final Integer[] rows = new Integer[n];
        final String[] bodies = new String[n];
        for (int i = 0; i < n; i++)
        {
            final AccountRequest a = run.get(i).account();
            keys[i] = run.get(i).key();
            fingerprints[i] = HexFormat.of().formatHex(a.fingerprint());
            ids[i] = a.id();
            currencies[i] = a.currency();
            constrained[i] = a.constrained();
            rows[i] = hotRows.rowsOf(a.subBalances());
            bodies[i] = a.successBody(nowMs, rows[i]);
        }
        try (PreparedStatement call = connection.prepareStatement(CALL_ACCOUNTS))
        {
            call.setLong(1, tenantId);
            call.setArray(2, connection.createArrayOf("text", keys));
            call.setArray(3, connection.createArrayOf("text", fingerprints));
            call.setArray(4, connection.createArrayOf("bigint", ids));
            call.setArray(5, connection.createArrayOf("text", currencies));
            call.setArray(6, connection.createArrayOf("boolean", constrained));
            call.setArray(7, connection.createArrayOf("integer", rows));
            call.setTimestamp(8, new Timestamp(nowMs));
            call.setArray(9, connection.createArrayOf("text", bodies));
            return all(call);
        }
    }

    private static List<Outcome> transferRun(final Connection connection, final long tenantId, final List<BatchOperation> run, final long nowMs)
        throws SQLException
    {
        final int n = run.size();
        final String[] keys = new String[n];
        final String[] fingerprints = new String[n];
        final String[] transferIds = new String[n];
        final Long[] debits = new Long[n];
        final Long[] credits = new Long[n];
        final Long[] amounts = new Long[n];
        final String[] currencies = new String[n];
        final String[] references = new String[n];
        final String[] bodies = new String[n];
        final String[] amountTexts = new String[n];
        for (int i = 0; i < n; i++)
        {
            final PreparedTransfer t = PreparedTransfer.of(tenantId, run.get(i).key(), run.get(i).transfer(), nowMs);
            final TransferRequest r = t.request();
            keys[i] = t.key();
            fingerprints[i] = HexFormat.of().formatHex(t.fingerprint());
            transferIds[i] = t.transferId().toString();
            debits[i] = r.debitAccountId();
            credits[i] = r.creditAccountId();
            amounts[i] = r.amountMinor();
            currencies[i] = r.currency();
            references[i] = r.reference();
            bodies[i] = t.successBody();
            amountTexts[i] = r.amountText();
        }
        try (PreparedStatement call = connection.prepareStatement(CALL_TRANSFERS))
        {
            call.setLong(1, tenantId);
            call.setArray(2, connection.createArrayOf("text", keys));
            call.setArray(3, connection.createArrayOf("text", fingerprints));
            call.setArray(4, connection.createArrayOf("text", transferIds));
            call.setArray(5, connection.createArrayOf("bigint", debits));
            call.setArray(6, connection.createArrayOf("bigint", credits));
            call.setArray(7, connection.createArrayOf("bigint", amounts));
            call.setArray(8, connection.createArrayOf("text", currencies));
            call.setArray(9, connection.createArrayOf("text", references));
            call.setTimestamp(10, new Timestamp(nowMs));
            call.setArray(11, connection.createArrayOf("text", bodies));
            call.setArray(12, connection.createArrayOf("text", amountTexts));
            return all(call);
        }
    }

    /**
     * An account as stored: its slot rows' balances in slot order.
     *
     * @param slotBalancesMinor each slot's balance; the account's balance is their sum.
     */
    record AccountRow(long id, String currency, boolean constrained, long[] slotBalancesMinor)
    {
        long balanceMinor()
        {
            long sum = 0;
            for (final long slot : slotBalancesMinor)
            {
                sum = Math.addExact(sum, slot);
            }
            return sum;
        }

        /** @return the {@code GET /v1/accounts/{id}} body, Tally's shape: one sub-balance per slot row. */
        String body()
        {
            final String balance = PeerMoney.format(balanceMinor(), currency);
            final String zero = PeerMoney.format(0, currency);
            final StringBuilder json = new StringBuilder(256 + 96 * slotBalancesMinor.length).append("{\"id\":").append(id)
                .append(",\"currency\":\"").append(currency).append("\",\"subBalances\":").append(slotBalancesMinor.length)
                .append(",\"debitsMustNotExceedCredits\":").append(constrained).append(",\"overdraftLimit\":\"").append(zero)
                .append("\",\"posted\":\"").append(balance).append("\",\"held\":\"").append(zero).append("\",\"available\":\"").append(balance)
                .append("\",\"subBalanceDetail\":[");
            for (int slot = 0; slot < slotBalancesMinor.length; slot++)
            {
                final String slotBalance = PeerMoney.format(slotBalancesMinor[slot], currency);
                json.append(slot == 0 ? "" : ",").append("{\"index\":").append(slot).append(",\"posted\":\"").append(slotBalance)
                    .append("\",\"held\":\"").append(zero).append("\",\"available\":\"").append(slotBalance).append("\"}");
            }
            return json.append("]}").toString();
        }
    }

    /** @return the account, or null when it does not exist or belongs to another tenant. */
    AccountRow readAccount(final Connection connection, final long tenantId, final long accountId) throws SQLException
    {
        try (PreparedStatement read = connection.prepareStatement(READ_ACCOUNT))
        {
            read.setLong(1, accountId);
            try (ResultSet rows = read.executeQuery())
            {
                String currency = null;
                boolean constrained = false;
                final List<Long> slots = new ArrayList<>();
                while (rows.next())
                {
                    if (rows.getLong(1) != tenantId)
                    {
                        commitUnlessAuto(connection);
                        return null;
                    }
                    currency = rows.getString(2);
                    constrained = rows.getBoolean(3);
                    slots.add(rows.getLong(4));
                }
                commitUnlessAuto(connection);
                if (slots.isEmpty())
                {
                    return null;
                }
                final long[] balances = new long[slots.size()];
                for (int i = 0; i < balances.length; i++)
                {
                    balances[i] = slots.get(i);
                }
                return new AccountRow(accountId, currency, constrained, balances);
            }
        }
    }

    private static Outcome single(final PreparedStatement call) throws SQLException
    {
        try (ResultSet rows = call.executeQuery())
        {
            if (!rows.next())
            {
                throw new SQLException("no row from " + call);
            }
            return new Outcome(rows.getInt(1), rows.getString(2), rows.getBoolean(3));
        }
    }

    private static List<Outcome> all(final PreparedStatement call) throws SQLException
    {
        final List<Outcome> outcomes = new ArrayList<>();
        try (ResultSet rows = call.executeQuery())
        {
            while (rows.next())
            {
                outcomes.add(new Outcome(rows.getInt(1), rows.getString(2), rows.getBoolean(3)));
            }
        }
        return outcomes;
    }

    private static void commitUnlessAuto(final Connection connection) throws SQLException
    {
        if (!connection.getAutoCommit())
        {
            connection.commit();
        }
    }
}
