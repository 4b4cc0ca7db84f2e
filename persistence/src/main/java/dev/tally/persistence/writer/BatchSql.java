package dev.tally.persistence.writer;

import dev.tally.ledger.effect.EventType;
import dev.tally.ledger.id.Uuid7;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;
import org.postgresql.copy.CopyManager;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes one {@link WriteBatch} in ONE transaction on the writer's connection, then commits.
 *
 * <p>Two modes, same result:
 * <ul>
 *   <li><b>Direct</b> (steady state and ordinary replay): the transaction first locks the watermark row and
 *   checks it is the value this writer last committed. Rows and watermark always commit together, so no row
 *   of a unit above the watermark can exist: insert-only rows (accounts, holds, transfers, ledger entries,
 *   outbox) are binary-COPYed straight into their tables, with no staging and no conflict check.</li>
 *   <li><b>Deduplicating</b> (the safety net): every row kind is binary-COPYed into a temporary staging table,
 *   then {@code INSERT ... SELECT ... ON CONFLICT DO NOTHING}. Used after a direct batch hit a duplicate key,
 *   which only happens when the database holds rows above its watermark (a watermark moved back by hand, a
 *   restore that mixed backups), and until a deduplicating batch finds no duplicate left.</li>
 * </ul>
 * In both modes balances and hold transitions go through staging and one guarded UPDATE each: every value
 * carries the journal index that produced it, and an older value never overwrites a newer one. The watermark
 * moves only from the value this writer last saw, so a second writer on the same database fails instead of
 * interleaving. Deterministic ids make the result identical whichever mode wrote a unit.
 *
 * <p>One instance per connection (it creates that session's staging tables), used by one thread at a time: the writer
 * thread, or the commit thread for {@link #commitStaged}.
 */
final class BatchSql
{
    /** Missing value of the scratch maps. */
    private static final long NONE = Long.MIN_VALUE;
    /** Floor of an unconstrained account's balances (stored as NULL). */
    private static final long UNCONSTRAINED = Long.MIN_VALUE + 1;

    private static final String[] STAGING = {
        "CREATE TEMP TABLE stage_accounts (LIKE accounts INCLUDING DEFAULTS) ON COMMIT DELETE ROWS",
        "CREATE TEMP TABLE stage_balances (tenant_id bigint, account_id bigint, sub_index smallint, posted_minor bigint," +
            " held_minor bigint, floor_minor bigint, is_new boolean, last_index bigint) ON COMMIT DELETE ROWS",
        "CREATE TEMP TABLE stage_holds (LIKE holds) ON COMMIT DELETE ROWS",
        "CREATE TEMP TABLE stage_hold_changes (journal_index bigint, status text, captured_transfer_id uuid," +
            " captured_amount_minor bigint, resolved_at timestamptz, last_journal_index bigint) ON COMMIT DELETE ROWS",
        "CREATE TEMP TABLE stage_transfers (LIKE transfers) ON COMMIT DELETE ROWS",
        "CREATE TEMP TABLE stage_entries (LIKE ledger_entries) ON COMMIT DELETE ROWS",
        "CREATE TEMP TABLE stage_account_status (tenant_id bigint, account_id bigint, status text, credits_frozen boolean," +
            " status_index bigint) ON COMMIT DELETE ROWS",
        "CREATE TEMP TABLE stage_account_metadata (tenant_id bigint, account_id bigint, metadata jsonb, metadata_index bigint)" +
            " ON COMMIT DELETE ROWS",
        "CREATE TEMP TABLE stage_outbox (id uuid, tenant_id bigint, aggregate_type text, aggregate_id text, event_type text," +
            " payload jsonb, journal_index bigint, created_at timestamptz) ON COMMIT DELETE ROWS",
    };

    /**
     * The writer session's planner settings. Every join the writer runs pairs a staged batch (thousands of rows)
     * with a table it reaches by a unique index (account_balances by its key, holds by journal_index); left to
     * itself, PostgreSQL hashes the whole table for the balances' UPDATE instead, reading every balance row once per
     * batch (100,000 rows to update 5,500 in the writer harness, 2.6 times the nested loop's time under EXPLAIN
     * ANALYZE, and growing with the number of accounts). Without hash and merge joins it probes the index per staged
     * row: a cost that follows the batch, not the table.
     */
    private static final String[] SESSION = {"SET enable_hashjoin = off", "SET enable_mergejoin = off"};

    /**
     * The columns an account's creation fills; the lifecycle's (V8) keep their defaults until a status change, and
     * metadata_index (V9) its 0 until a metadata update.
     */
    private static final String ACCOUNT_COLUMNS =
        " (tenant_id, account_id, currency, sub_balances, debits_must_not_exceed_credits, overdraft_limit_minor, journal_index, created_at," +
        " metadata)";
    private static final String INSERT_ACCOUNTS = "INSERT INTO accounts" + ACCOUNT_COLUMNS + " SELECT" +
        ACCOUNT_COLUMNS.replace('(', ' ').replace(')', ' ') + "FROM stage_accounts ON CONFLICT DO NOTHING";
    /** The last status change of each account in the batch (one row per account), never over a newer one. */
    static final String UPDATE_ACCOUNT_STATUS =
        "UPDATE accounts a SET status = s.status, credits_frozen = s.credits_frozen, status_index = s.status_index" +
        " FROM stage_account_status s WHERE a.tenant_id = s.tenant_id AND a.account_id = s.account_id" +
        " AND a.status_index < s.status_index";
    private static final String MISSING_ACCOUNT = missingAccount("stage_account_status");
    /** The last metadata update of each account in the batch (one row per account), never over a newer one. */
    static final String UPDATE_ACCOUNT_METADATA =
        "UPDATE accounts a SET metadata = s.metadata, metadata_index = s.metadata_index" +
        " FROM stage_account_metadata s WHERE a.tenant_id = s.tenant_id AND a.account_id = s.account_id" +
        " AND a.metadata_index < s.metadata_index";
    private static final String MISSING_METADATA_ACCOUNT = missingAccount("stage_account_metadata");
    private static final String INSERT_NEW_BALANCES =
        "INSERT INTO account_balances (tenant_id, account_id, sub_index, posted_minor, held_minor, floor_minor, last_index)" +
        " SELECT tenant_id, account_id, sub_index, posted_minor, held_minor, floor_minor, last_index FROM stage_balances" +
        " WHERE is_new ON CONFLICT (tenant_id, account_id, sub_index) DO UPDATE SET posted_minor = EXCLUDED.posted_minor," +
        " held_minor = EXCLUDED.held_minor, last_index = EXCLUDED.last_index WHERE account_balances.last_index < EXCLUDED.last_index";
    static final String UPDATE_BALANCES =
        "UPDATE account_balances b SET posted_minor = s.posted_minor, held_minor = s.held_minor, last_index = s.last_index" +
        " FROM stage_balances s WHERE NOT s.is_new AND b.tenant_id = s.tenant_id AND b.account_id = s.account_id" +
        " AND b.sub_index = s.sub_index AND b.last_index < s.last_index";
    private static final String MISSING_BALANCE =
        "SELECT s.tenant_id, s.account_id, s.sub_index FROM stage_balances s WHERE NOT s.is_new AND NOT EXISTS" +
        " (SELECT 1 FROM account_balances b WHERE b.tenant_id = s.tenant_id AND b.account_id = s.account_id" +
        " AND b.sub_index = s.sub_index) LIMIT 1";
    private static final String INSERT_HOLDS = "INSERT INTO holds SELECT * FROM stage_holds ON CONFLICT DO NOTHING";
    private static final String UPDATE_HOLDS =
        "UPDATE holds h SET status = s.status, captured_transfer_id = s.captured_transfer_id," +
        " captured_amount_minor = s.captured_amount_minor, resolved_at = s.resolved_at, last_journal_index = s.last_journal_index" +
        " FROM stage_hold_changes s WHERE h.journal_index = s.journal_index AND h.last_journal_index < s.last_journal_index";
    private static final String MISSING_HOLD =
        "SELECT s.journal_index FROM stage_hold_changes s WHERE NOT EXISTS (SELECT 1 FROM holds h" +
        " WHERE h.journal_index = s.journal_index) LIMIT 1";
    private static final String INSERT_TRANSFERS = "INSERT INTO transfers SELECT * FROM stage_transfers ON CONFLICT (id) DO NOTHING";
    private static final String INSERT_ENTRIES = "INSERT INTO ledger_entries SELECT * FROM stage_entries ON CONFLICT DO NOTHING";
    private static final String INSERT_OUTBOX =
        "INSERT INTO outbox (id, tenant_id, aggregate_type, aggregate_id, event_type, payload, journal_index, created_at)" +
        " SELECT id, tenant_id, aggregate_type, aggregate_id, event_type, payload, journal_index, created_at FROM stage_outbox" +
        " ON CONFLICT DO NOTHING";
    private static final String LOCK_WATERMARK = "SELECT journal_index FROM ledger_watermark FOR UPDATE";
    private static final String COPY_BINARY = " FROM STDIN (FORMAT binary)";
    private static final String OUTBOX_COLUMNS =
        " (id, tenant_id, aggregate_type, aggregate_id, event_type, payload, journal_index, created_at)";
    private static final String FIND_HOLD_IDS = "SELECT journal_index, id FROM holds WHERE journal_index = ANY (?)";
    private static final String MOVE_WATERMARK =
        "UPDATE ledger_watermark SET journal_index = ?, journal_time = to_timestamp(? / 1000000000.0), updated_at = now()" +
        " WHERE journal_index = ?";

    private final Connection connection;
    private final CopyManager copy;
    private final CopyBuffer rows = new CopyBuffer();
    private final EventPayloads payloads = new EventPayloads();
    private final PreparedStatement moveWatermark;
    private final PreparedStatement findHoldIds;
    private final Statement statement;

    // per batch scratch
    /** Accounts created in this batch: tenant, then account id, to the floor of their balances. */
    private final Long2ObjectHashMap<Long2LongHashMap> newAccountFloors = new Long2ObjectHashMap<>();
    private final Long2LongHashMap holdIdHi = new Long2LongHashMap(NONE);
    private final Long2LongHashMap holdIdLo = new Long2LongHashMap(NONE);
    private final Long2LongHashMap lastHoldChange = new Long2LongHashMap(-1);
    /** Rows {@link #stage} left for each of {@link #finish}'s statements, in its order (0: the statement is skipped). */
    private int[] stagedRows;

    BatchSql(final Connection connection) throws SQLException
    {
        this.connection = connection;
        copy = connection.unwrap(PGConnection.class).getCopyAPI();
        try (Statement s = connection.createStatement())
        {
            for (final String ddl : STAGING)
            {
                s.execute(ddl);
            }
            for (final String setting : SESSION)
            {
                s.execute(setting);
            }
        }
        connection.commit();
        moveWatermark = connection.prepareStatement(MOVE_WATERMARK);
        findHoldIds = connection.prepareStatement(FIND_HOLD_IDS);
        statement = connection.createStatement();
    }

    /**
     * Writes the batch and moves the watermark from {@code expectedWatermark} to the batch's last unit, then
     * commits: {@link #stage} then {@link #commitStaged}, with the watermark locked first. On any exception the caller
     * rolls back.
     *
     * @param deduplicate false: direct COPY into the tables (a duplicate key fails the batch with SQLState 23505,
     *                    and the caller retries it deduplicating); true: staging and ON CONFLICT DO NOTHING.
     * @return true when every row was new (in deduplicating mode: no duplicate was skipped).
     * @throws IllegalStateException when the database contradicts the journal (a row that must exist does
     * not, or another writer moved the watermark): not retryable.
     * @throws AlreadyCommitted when the watermark already stands at the batch's last unit: an earlier attempt's
     * COMMIT reached the database but its reply was lost (the connection broke in between).
     */
    boolean write(final WriteBatch batch, final long expectedWatermark, final boolean deduplicate) throws SQLException
    {
        lockWatermark(expectedWatermark, batch.lastUnitIndex);
        stage(batch, deduplicate);
        return finish(batch, expectedWatermark);
    }

    /**
     * The first half of a batch's transaction, which takes no lock another batch's transaction waits for: resolves the
     * ids of holds created in earlier batches, then COPYs the insert-only rows into their tables (direct) or their
     * staging tables (deduplicating), and balances and hold transitions into staging. The pipelined writer runs it
     * while the previous batch's transaction is still open on the other connection.
     */
    void stage(final WriteBatch batch, final boolean deduplicate) throws SQLException
    {
        prepareScratch(batch);
        resolveHoldIds(batch);
        final int accounts = copyAccounts(batch, target(deduplicate, "accounts", ACCOUNT_COLUMNS));
        final int statusChanges = copyAccountStatus(batch);
        final int metadataUpdates = copyAccountMetadata(batch);
        final int newBalances = copyBalances(batch);
        final int existingBalances = batch.balances - newBalances;
        final int holds = copyHolds(batch, target(deduplicate, "holds", ""));
        final int holdChanges = copyHoldChanges(batch);
        final int transfers = copyTransfers(batch, target(deduplicate, "transfers", ""));
        final int entries = copyEntries(batch, target(deduplicate, "ledger_entries", ""));
        final int outbox = copyOutbox(batch, target(deduplicate, "outbox", OUTBOX_COLUMNS));
        stagedRows = new int[] {deduplicate ? accounts : 0, statusChanges, metadataUpdates, newBalances, existingBalances,
            deduplicate ? holds : 0, holdChanges, deduplicate ? transfers : 0, deduplicate ? entries : 0, deduplicate ? outbox : 0};
    }

    /**
     * The second half, after {@link #stage} on this connection, once every earlier batch has committed: locks the
     * watermark and checks it stands at {@code expectedWatermark}, then as {@link #finish}.
     */
    boolean commitStaged(final WriteBatch batch, final long expectedWatermark) throws SQLException
    {
        lockWatermark(expectedWatermark, batch.lastUnitIndex);
        return finish(batch, expectedWatermark);
    }

    /**
     * True when {@link #stage} would look up holds an earlier batch created: the pipelined writer then waits for the
     * previous batch's commit first, or the lookup would not see a hold that batch is still writing.
     */
    boolean refersToEarlierHolds(final WriteBatch batch)
    {
        prepareScratch(batch);
        final Long2LongHashMap.KeyIterator keys = lastHoldChange.keySet().iterator();
        while (keys.hasNext())
        {
            if (!holdIdHi.containsKey(keys.nextValue()))
            {
                return true;
            }
        }
        return false;
    }

    /** Runs the staged rows' statements (INSERT … SELECT, guarded UPDATEs), moves the watermark and commits. */
    private boolean finish(final WriteBatch batch, final long expectedWatermark) throws SQLException
    {
        statement.clearBatch();
        final String[] sqls = {INSERT_ACCOUNTS, UPDATE_ACCOUNT_STATUS, UPDATE_ACCOUNT_METADATA, INSERT_NEW_BALANCES, UPDATE_BALANCES,
            INSERT_HOLDS, UPDATE_HOLDS, INSERT_TRANSFERS, INSERT_ENTRIES, INSERT_OUTBOX};
        final int[] rows = stagedRows;
        final int[] staged = new int[sqls.length];
        int statements = 0;
        for (int k = 0; k < sqls.length; k++)
        {
            if (rows[k] > 0)
            {
                statement.addBatch(sqls[k]);
                staged[statements++] = k;
            }
        }
        boolean allNew = true;
        if (statements > 0)
        {
            final int[] counts = statement.executeBatch();
            for (int i = 0; i < statements; i++)
            {
                final int k = staged[i];
                if (counts[i] >= rows[k])
                {
                    continue;
                }
                if (sqls[k] == UPDATE_BALANCES)
                {
                    requireNoneMissing(MISSING_BALANCE, "balance row");
                }
                else if (sqls[k] == UPDATE_HOLDS)
                {
                    requireNoneMissing(MISSING_HOLD, "hold row");
                }
                else if (sqls[k] == UPDATE_ACCOUNT_STATUS)
                {
                    requireNoneMissing(MISSING_ACCOUNT, "account row");
                }
                else if (sqls[k] == UPDATE_ACCOUNT_METADATA)
                {
                    requireNoneMissing(MISSING_METADATA_ACCOUNT, "account row");
                }
                allNew = false;
            }
        }
        moveWatermark.setLong(1, batch.lastUnitIndex);
        moveWatermark.setLong(2, batch.lastUnitTimeNs);
        moveWatermark.setLong(3, expectedWatermark);
        if (moveWatermark.executeUpdate() != 1)
        {
            throw new IllegalStateException("the watermark is no longer " + expectedWatermark +
                ": another writer is writing to this database");
        }
        connection.commit();
        return allNew;
    }

    /**
     * The watermark stands at the batch's own last unit: the batch is in the database already. A retry after a
     * broken connection meets this when the earlier attempt's COMMIT went through and only its reply was lost.
     */
    static final class AlreadyCommitted extends SQLException
    {
        private static final long serialVersionUID = 1L;

        AlreadyCommitted(final long watermark)
        {
            super("the watermark is already " + watermark + ": an earlier attempt of this batch committed");
        }
    }

    /** Locks the watermark row for this transaction: no other writer can commit rows until it ends. */
    private void lockWatermark(final long expectedWatermark, final long batchLastIndex) throws SQLException
    {
        final long actual;
        try (ResultSet rs = statement.executeQuery(LOCK_WATERMARK))
        {
            actual = rs.next() ? rs.getLong(1) : -1;
        }
        if (actual == expectedWatermark)
        {
            return;
        }
        if (actual == batchLastIndex)
        {
            throw new AlreadyCommitted(actual);
        }
        if (actual < expectedWatermark)
        {
            throw new IllegalStateException("the watermark went back from " + expectedWatermark + " to " + actual +
                ": PostgreSQL lost commits this writer made (a failover to a standby without them, a restore);" +
                " restart Tally, which replays the journal from the watermark");
        }
        throw new IllegalStateException("the watermark is " + actual + ", not " + expectedWatermark +
            " as this writer last committed: another writer is writing to this database");
    }

    /** @return the COPY target: the table itself (direct) or its staging table (deduplicating). */
    private static String target(final boolean deduplicate, final String table, final String columns)
    {
        return "COPY " + (deduplicate ? "stage_" + (table.equals("ledger_entries") ? "entries" : table) : table) + columns + COPY_BINARY;
    }

    /** Ensures monthly partitions for the UTC months from {@code fromMs} on (own transaction). */
    void ensurePartitions(final long fromMs, final int monthsAhead) throws SQLException
    {
        try (PreparedStatement s = connection.prepareStatement("SELECT tally_ensure_partitions(to_timestamp(? / 1000.0), ?)"))
        {
            s.setLong(1, fromMs);
            s.setInt(2, monthsAhead);
            s.execute();
        }
        connection.commit();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Derived state: which accounts are new, hold ids, last transition per hold.
    // ---------------------------------------------------------------------------------------------------------

    private void prepareScratch(final WriteBatch b)
    {
        newAccountFloors.clear();
        holdIdHi.clear();
        holdIdLo.clear();
        lastHoldChange.clear();
        for (int i = 0; i < b.events; i++)
        {
            final EventType type = EventType.fromCode(b.eventType[i]);
            if (type == EventType.ACCOUNT_CREATED)
            {
                final boolean constrained = b.eventAuxInt[i] != 0;
                final long floor = !constrained ? UNCONSTRAINED : b.eventExtra[i] == 1 ? -b.eventAuxLong[i] : 0;
                Long2LongHashMap floors = newAccountFloors.get(b.eventTenant[i]);
                if (floors == null)
                {
                    floors = new Long2LongHashMap(NONE);
                    newAccountFloors.put(b.eventTenant[i], floors);
                }
                floors.put(b.eventSubject[i], floor);
            }
            else if (type == EventType.HOLD_CREATED)
            {
                holdIdHi.put(b.eventSubject[i], Uuid7.hi(b.eventTime[i], Uuid7.KIND_HOLD));
                holdIdLo.put(b.eventSubject[i], Uuid7.lo(b.eventSubject[i], 0));
            }
            else if (type != EventType.TRANSFER_POSTED && type != EventType.TRANSFER_REVERSED && !type.isAccountEvent())
            {
                lastHoldChange.put(b.eventSubject[i], i);
            }
        }
    }

    /** Holds created before this batch: their ids derive from a creation time the events do not carry. */
    private void resolveHoldIds(final WriteBatch b) throws SQLException
    {
        final List<Long> missing = new ArrayList<>();
        final Long2LongHashMap.KeyIterator keys = lastHoldChange.keySet().iterator();
        while (keys.hasNext())
        {
            final long holdIndex = keys.nextValue();
            if (!holdIdHi.containsKey(holdIndex))
            {
                missing.add(holdIndex);
            }
        }
        if (missing.isEmpty())
        {
            return;
        }
        findHoldIds.setArray(1, connection.createArrayOf("bigint", missing.toArray()));
        try (ResultSet rs = findHoldIds.executeQuery())
        {
            while (rs.next())
            {
                final java.util.UUID id = rs.getObject(2, java.util.UUID.class);
                holdIdHi.put(rs.getLong(1), id.getMostSignificantBits());
                holdIdLo.put(rs.getLong(1), id.getLeastSignificantBits());
            }
        }
        for (final long holdIndex : missing)
        {
            if (!holdIdHi.containsKey(holdIndex))
            {
                throw new IllegalStateException("hold of journal index " + holdIndex + " is not in PostgreSQL but the journal" +
                    " ends it: the database is behind the ledger it is fed from (was it restored from a snapshot newer" +
                    " than the watermark?)");
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // COPY of each row kind. Each returns the number of rows staged (0: no COPY issued).
    // ---------------------------------------------------------------------------------------------------------

    private int copyAccounts(final WriteBatch b, final String copySql) throws SQLException
    {
        rows.begin();
        for (int i = 0; i < b.events; i++)
        {
            if (b.eventType[i] == EventType.ACCOUNT_CREATED.code())
            {
                rows.row(9).int8(b.eventTenant[i]).int8(b.eventSubject[i]).currency(b.eventCurrency[i])
                    .int2((int)b.eventExtra[i]).bool(b.eventAuxInt[i] != 0).int8(b.eventAuxLong[i])
                    .int8(b.eventCommand[i]).timestampNs(b.eventTime[i]);
                metadataOrNull(b, i);
            }
        }
        return send(copySql);
    }

    /** Writes event {@code i}'s metadata as a jsonb field, or NULL when it carries none. */
    private void metadataOrNull(final WriteBatch b, final int i)
    {
        if (b.eventMetadataLength[i] > 0)
        {
            rows.jsonb(b.metadata, b.eventMetadataOffset[i], b.eventMetadataLength[i]);
        }
        else
        {
            rows.nul();
        }
    }

    /**
     * Stages the last metadata update of each account the batch updated: one row per account, as for the status. An update
     * without metadata stages NULL (it removed the metadata).
     */
    private int copyAccountMetadata(final WriteBatch b) throws SQLException
    {
        rows.begin();
        final Long2ObjectHashMap<Long2LongHashMap> seen = new Long2ObjectHashMap<>();
        for (int i = b.events - 1; i >= 0; i--)
        {
            if (b.eventType[i] != EventType.ACCOUNT_METADATA_UPDATED.code())
            {
                continue;
            }
            final Long2LongHashMap accounts = seen.computeIfAbsent(b.eventTenant[i], tenant -> new Long2LongHashMap(NONE));
            if (accounts.put(b.eventSubject[i], i) != NONE)
            {
                continue;   // a later update of this account in the batch stands
            }
            rows.row(4).int8(b.eventTenant[i]).int8(b.eventSubject[i]);
            metadataOrNull(b, i);
            rows.int8(b.eventCommand[i]);
        }
        return send("COPY stage_account_metadata FROM STDIN (FORMAT binary)");
    }

    /**
     * Stages the last status change of each account the batch froze, unfroze or closed: one row per account, as the
     * batch's events run in journal order and only the last one stands.
     */
    private int copyAccountStatus(final WriteBatch b) throws SQLException
    {
        rows.begin();
        final Long2ObjectHashMap<Long2LongHashMap> seen = new Long2ObjectHashMap<>();
        for (int i = b.events - 1; i >= 0; i--)
        {
            final EventType type = EventType.fromCode(b.eventType[i]);
            if (!type.isStatusChange())
            {
                continue;   // not a status change
            }
            final Long2LongHashMap accounts = seen.computeIfAbsent(b.eventTenant[i], tenant -> new Long2LongHashMap(NONE));
            if (accounts.put(b.eventSubject[i], i) != NONE)
            {
                continue;   // a later change of this account in the batch stands
            }
            final String status = type == EventType.ACCOUNT_FROZEN ? "frozen" : type == EventType.ACCOUNT_CLOSED ? "closed" : "active";
            rows.row(5).int8(b.eventTenant[i]).int8(b.eventSubject[i]).text(status)
                .bool(type == EventType.ACCOUNT_FROZEN && b.eventExtra[i] != 0).int8(b.eventCommand[i]);
        }
        return send("COPY stage_account_status FROM STDIN (FORMAT binary)");
    }

    /** @return how many staged balances belong to accounts created in this batch; staged in key order ({@link WriteBatch#balancesInKeyOrder}). */
    private int copyBalances(final WriteBatch b) throws SQLException
    {
        int created = 0;
        final int[] order = b.balancesInKeyOrder();
        rows.begin();
        for (int k = 0; k < b.balances; k++)
        {
            final int i = order[k];
            final Long2LongHashMap floors = newAccountFloors.get(b.balanceTenant[i]);
            final boolean isNew = floors != null && floors.containsKey(b.balanceAccount[i]);
            rows.row(8).int8(b.balanceTenant[i]).int8(b.balanceAccount[i]).int2(b.balanceSub[i]).int8(b.balancePosted[i])
                .int8(b.balanceHeld[i]);
            final long floor = isNew ? floors.get(b.balanceAccount[i]) : UNCONSTRAINED;
            if (floor == UNCONSTRAINED)
            {
                rows.nul();
            }
            else
            {
                rows.int8(floor);
            }
            rows.bool(isNew).int8(b.balanceCommand[i]);
            created += isNew ? 1 : 0;
        }
        send("COPY stage_balances FROM STDIN (FORMAT binary)");
        return created;
    }

    private int copyHolds(final WriteBatch b, final String copySql) throws SQLException
    {
        rows.begin();
        for (int i = 0; i < b.events; i++)
        {
            if (b.eventType[i] == EventType.HOLD_CREATED.code())
            {
                final long holdIndex = b.eventSubject[i];
                rows.row(13).uuid(holdIdHi.get(holdIndex), holdIdLo.get(holdIndex)).int8(holdIndex).int8(b.eventTenant[i])
                    .int8(b.eventAccountA[i]).int8(b.eventAmount[i]).currency(b.eventCurrency[i]).text("active")
                    .timestampMs(b.eventExtra[i]).nul().nul().timestampNs(b.eventTime[i]).nul().int8(b.eventCommand[i]);
            }
        }
        return send(copySql);
    }

    private int copyHoldChanges(final WriteBatch b) throws SQLException
    {
        rows.begin();
        final Long2LongHashMap.ValueIterator positions = lastHoldChange.values().iterator();
        while (positions.hasNext())
        {
            final int i = (int)positions.nextValue();
            final EventType type = EventType.fromCode(b.eventType[i]);
            rows.row(6).int8(b.eventSubject[i]).text(holdStatus(type));
            if (type == EventType.HOLD_CAPTURED)
            {
                rows.uuid(Uuid7.hi(b.eventTime[i], Uuid7.KIND_TRANSFER), Uuid7.lo(b.eventCommand[i], 0)).int8(b.eventAmount[i]);
            }
            else
            {
                rows.nul().nul();
            }
            if (type == EventType.HOLD_MARKED_UNKNOWN)
            {
                rows.nul();
            }
            else
            {
                rows.timestampNs(b.eventTime[i]);
            }
            rows.int8(b.eventCommand[i]);
        }
        return send("COPY stage_hold_changes FROM STDIN (FORMAT binary)");
    }

    private int copyTransfers(final WriteBatch b, final String copySql) throws SQLException
    {
        rows.begin();
        for (int i = 0; i < b.events; i++)
        {
            final EventType type = EventType.fromCode(b.eventType[i]);
            final String kind = type == EventType.TRANSFER_POSTED ? "transfer" : type == EventType.TRANSFER_REVERSED ? "reversal" :
                type == EventType.HOLD_CAPTURED ? "capture" : null;
            if (kind == null)
            {
                continue;
            }
            rows.row(13).uuid(Uuid7.hi(b.eventTime[i], Uuid7.KIND_TRANSFER), Uuid7.lo(b.eventCommand[i], 0))
                .int8(b.eventTenant[i]).text(kind).int8(b.eventAccountA[i]).int8(b.eventAccountB[i]).int8(b.eventAmount[i])
                .currency(b.eventCurrency[i]);
            if (b.eventReferenceLength[i] > 0)
            {
                rows.text(b.references, b.eventReferenceOffset[i], b.eventReferenceLength[i]);
            }
            else
            {
                rows.nul();
            }
            if (type == EventType.TRANSFER_REVERSED)
            {
                rows.uuid(Uuid7.hi(b.eventAuxLong[i], Uuid7.KIND_TRANSFER), Uuid7.lo(b.eventExtra[i], 0));
            }
            else
            {
                rows.nul();
            }
            if (type == EventType.HOLD_CAPTURED)
            {
                rows.uuid(holdIdHi.get(b.eventSubject[i]), holdIdLo.get(b.eventSubject[i]));
            }
            else
            {
                rows.nul();
            }
            rows.int8(b.eventCommand[i]).timestampNs(b.eventTime[i]);
            metadataOrNull(b, i);   // the last column (V4): only a posted transfer's event carries any
        }
        return send(copySql);
    }

    private int copyEntries(final WriteBatch b, final String copySql) throws SQLException
    {
        rows.begin();
        for (int i = 0; i < b.entries; i++)
        {
            final long time = b.entryTime[i];
            rows.row(10).uuid(Uuid7.hi(time, Uuid7.KIND_ENTRY), Uuid7.lo(b.entryCommand[i], b.entryOrdinal[i]))
                .uuid(Uuid7.hi(time, Uuid7.KIND_TRANSFER), Uuid7.lo(b.entryTransfer[i], 0))
                .int8(b.entryTenant[i]).int8(b.entryAccount[i]).int8(b.entryAmount[i]).currency(b.entryCurrency[i])
                .int8(b.entryCommand[i]).timestampNs(time).int8(b.entryBalanceAfter[i]).int2(b.entryKind[i]);
        }
        return send(copySql);
    }

    private int copyOutbox(final WriteBatch b, final String copySql) throws SQLException
    {
        rows.begin();
        for (int i = 0; i < b.events; i++)
        {
            payloads.row(rows, b, i, holdIdHi, holdIdLo);
        }
        return send(copySql);
    }

    private int send(final String sql) throws SQLException
    {
        final int staged = rows.rows();
        if (staged == 0)
        {
            return 0;
        }
        rows.end();
        final CopyIn in = copy.copyIn(sql);
        try
        {
            in.writeToCopy(rows.array(), 0, rows.length());
            in.endCopy();
        }
        finally
        {
            if (in.isActive())
            {
                in.cancelCopy();
            }
        }
        return staged;
    }

    /** @return the query for an account a staging table names that the accounts table lacks (its key, or no row). */
    private static String missingAccount(final String stage)
    {
        return "SELECT s.tenant_id, s.account_id FROM " + stage + " s WHERE NOT EXISTS (SELECT 1 FROM accounts a" +
            " WHERE a.tenant_id = s.tenant_id AND a.account_id = s.account_id) LIMIT 1";
    }

    private void requireNoneMissing(final String query, final String what) throws SQLException
    {
        try (ResultSet rs = statement.executeQuery(query))
        {
            if (rs.next())
            {
                final StringBuilder key = new StringBuilder();
                for (int c = 1; c <= rs.getMetaData().getColumnCount(); c++)
                {
                    key.append(c == 1 ? "" : "/").append(rs.getString(c));
                }
                throw new IllegalStateException(what + " " + key + " is missing from PostgreSQL: the database is behind" +
                    " the ledger it is fed from");
            }
        }
    }

    private static String holdStatus(final EventType type)
    {
        switch (type)
        {
            case HOLD_CAPTURED: return "captured";
            case HOLD_VOIDED: return "voided";
            case HOLD_EXPIRED: return "expired";
            case HOLD_MARKED_UNKNOWN: return "unknown";
            default: throw new IllegalArgumentException("not a hold transition: " + type);
        }
    }
}
