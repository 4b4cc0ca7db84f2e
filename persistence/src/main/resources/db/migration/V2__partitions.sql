-- Monthly partitions of ledger_entries and outbox, on UUIDv7 id ranges.
--
-- A Tally id's first 48 bits are the journaled unix milliseconds, then the version nibble (7). The
-- smallest id of a millisecond is therefore <48-bit ms>-<0000>-0000-0000-000000000000 (version 0 sorts
-- below every real id of that millisecond), and a month is the id range [first ms of the month, first ms
-- of the next month). PostgreSQL compares uuids bytewise, which is the order of those bits.
--
-- Partitions are named <table>_YYYYMM (UTC months). The writer calls tally_ensure_partitions for the
-- months its batches' journaled times fall in, and for the current month and two ahead when it starts;
-- an operator may call it too (it is idempotent). Rows that landed in the DEFAULT partition because no
-- monthly partition existed yet are moved into the new partition when it is created.

-- The smallest Tally id of the millisecond p_at falls in (p_at >= 1970, finite).
CREATE FUNCTION tally_uuid_lower_bound(p_at timestamptz) RETURNS uuid
LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT (substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-0000-0000-000000000000')::uuid
    FROM (SELECT lpad(to_hex(floor(extract(epoch FROM p_at) * 1000)::bigint), 12, '0') AS h) AS hex
$$;

-- Creates the partition of p_table ('ledger_entries' or 'outbox') for the UTC month starting p_month,
-- unless it exists. Returns true when it created one.
CREATE FUNCTION tally_create_month_partition(p_table text, p_month date) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
    v_month     date        := date_trunc('month', p_month)::date;
    v_name      text        := p_table || '_' || to_char(v_month, 'YYYYMM');
    v_from      uuid        := tally_uuid_lower_bound(v_month::timestamp AT TIME ZONE 'UTC');
    v_to        uuid        := tally_uuid_lower_bound((v_month + interval '1 month')::timestamp AT TIME ZONE 'UTC');
    v_stranded  boolean;
BEGIN
    IF p_table NOT IN ('ledger_entries', 'outbox') THEN
        RAISE EXCEPTION 'not a monthly partitioned table: %', p_table;
    END IF;
    IF to_regclass(quote_ident(v_name)) IS NOT NULL THEN
        RETURN false;
    END IF;
    -- Serialise concurrent callers (writer and operator) on this table's partition set.
    PERFORM pg_advisory_xact_lock(hashtext('tally_partitions_' || p_table));
    IF to_regclass(quote_ident(v_name)) IS NOT NULL THEN
        RETURN false;
    END IF;
    EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE id >= $1 AND id < $2)', p_table || '_default')
        INTO v_stranded USING v_from, v_to;
    IF NOT v_stranded THEN
        EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)', v_name, p_table, v_from, v_to);
    ELSE
        -- ATTACH refuses a range the DEFAULT partition still holds rows of: move them first, in this
        -- transaction (tally.maintenance lets the immutability trigger allow this one DELETE).
        PERFORM set_config('tally.maintenance', 'on', true);
        EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', v_name, p_table);
        EXECUTE format('WITH moved AS (DELETE FROM %I WHERE id >= $1 AND id < $2 RETURNING *) INSERT INTO %I SELECT * FROM moved',
            p_table || '_default', v_name) USING v_from, v_to;
        EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', p_table, v_name, v_from, v_to);
        PERFORM set_config('tally.maintenance', 'off', true);
    END IF;
    RETURN true;
END
$$;

-- Ensures monthly partitions of ledger_entries and outbox from the month of p_from through p_months_ahead
-- months after it. Returns how many partitions it created.
CREATE FUNCTION tally_ensure_partitions(p_from timestamptz, p_months_ahead integer) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    v_first   date    := date_trunc('month', p_from AT TIME ZONE 'UTC')::date;
    v_created integer := 0;
    v_month   date;
BEGIN
    IF p_months_ahead < 0 OR p_months_ahead > 120 THEN
        RAISE EXCEPTION 'p_months_ahead must be in [0, 120], was %', p_months_ahead;
    END IF;
    FOR i IN 0 .. p_months_ahead LOOP
        v_month := (v_first + make_interval(months => i))::date;
        v_created := v_created + tally_create_month_partition('ledger_entries', v_month)::integer;
        v_created := v_created + tally_create_month_partition('outbox', v_month)::integer;
    END LOOP;
    RETURN v_created;
END
$$;

-- Drops whole outbox partitions (outbox_YYYYMM) of months that ended on or before p_before, oldest
-- first, and stops at the first month that still holds an unpublished event (it is never dropped).
-- Dropping a partition is instant and leaves no bloat, unlike DELETE. Returns how many it dropped and
-- records in outbox_retention where the retained outbox now starts.
CREATE FUNCTION tally_drop_outbox_partitions(p_before timestamptz) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    v_cutoff  date    := date_trunc('month', p_before AT TIME ZONE 'UTC')::date;
    v_dropped integer := 0;
    v_part    record;
    v_month   date;
    v_pending boolean;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('tally_partitions_outbox'));
    FOR v_part IN
        SELECT c.relname
        FROM pg_inherits i
        JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'outbox'::regclass AND c.relname ~ '^outbox_[0-9]{6}$'
        ORDER BY c.relname
    LOOP
        v_month := to_date(substr(v_part.relname, 8), 'YYYYMM');
        EXIT WHEN (v_month + interval '1 month')::date > v_cutoff;
        EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE published_at IS NULL)', v_part.relname) INTO v_pending;
        IF v_pending THEN
            RAISE WARNING 'outbox partition % still holds unpublished events: not dropped, and nothing newer is', v_part.relname;
            EXIT;
        END IF;
        EXECUTE format('DROP TABLE %I', v_part.relname);
        UPDATE outbox_retention
        SET retained_from = greatest(retained_from, ((v_month + interval '1 month')::timestamp AT TIME ZONE 'UTC'));
        v_dropped := v_dropped + 1;
    END LOOP;
    RETURN v_dropped;
END
$$;
