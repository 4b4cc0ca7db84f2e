-- Tally read model and outbox. PostgreSQL is NOT the source of truth: the journal is. The batched
-- writer (dev.tally.persistence.writer.LedgerWriter) fills these tables from the ledger's effects, in one
-- transaction per batch together with the watermark, so after any crash and replay they converge to the
-- journal. Every id is a deterministic UUIDv7 (journaled unix ms | version | kind | journal index | ordinal),
-- which is what makes replays deduplicate.
--
-- Amounts are bigint minor units. CHECK constraints are the last line of defence: the ledger already
-- enforces every rule in memory, so a violation here means a bug, and the writer halts on it.

-- Accounts: ids are chosen by clients and unique PER TENANT.
CREATE TABLE accounts (
    tenant_id                      bigint      NOT NULL,
    account_id                     bigint      NOT NULL CHECK (account_id > 0),
    currency                       char(3)     NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    sub_balances                   smallint    NOT NULL CHECK (sub_balances BETWEEN 1 AND 64),
    debits_must_not_exceed_credits boolean     NOT NULL,
    overdraft_limit_minor          bigint      NOT NULL CHECK (overdraft_limit_minor >= 0),
    journal_index                  bigint      NOT NULL CHECK (journal_index > 0),
    created_at                     timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, account_id),
    -- as in the ledger: an overdraft only on a constrained account with a single sub-balance
    CONSTRAINT accounts_overdraft_shape CHECK (
        overdraft_limit_minor = 0 OR (debits_must_not_exceed_credits AND sub_balances = 1))
);

-- One row per sub-balance, so a hot account is many rows and the writer never updates one hot row.
-- floor_minor is the lowest available the ledger allows (0, or -overdraft for a single-sub-balance
-- account), NULL for an unconstrained (funding) account; the writer sets it when the account is created.
CREATE TABLE account_balances (
    tenant_id    bigint   NOT NULL,
    account_id   bigint   NOT NULL,
    sub_index    smallint NOT NULL CHECK (sub_index BETWEEN 0 AND 63),
    posted_minor bigint   NOT NULL,
    held_minor   bigint   NOT NULL CHECK (held_minor >= 0),
    floor_minor  bigint   NULL CHECK (floor_minor IS NULL OR floor_minor <= 0),
    last_index   bigint   NOT NULL CHECK (last_index > 0),
    PRIMARY KEY (tenant_id, account_id, sub_index),
    FOREIGN KEY (tenant_id, account_id) REFERENCES accounts (tenant_id, account_id),
    -- CASE, not OR: evaluation order of OR is not guaranteed, and posted - held of an unconstrained
    -- account may not fit in a bigint.
    CONSTRAINT account_balances_available_floor CHECK (
        CASE WHEN floor_minor IS NULL THEN true ELSE posted_minor - held_minor >= floor_minor END)
) WITH (fillfactor = 50);   -- every batch updates these rows: room on the page keeps the updates HOT (no index writes)

-- Transfers, reversals and the transfers hold captures post. Not partitioned: UNIQUE (tenant_id,
-- reference) must hold across all time, and a unique constraint on a partitioned table has to include
-- the partition key. The ledger refuses a reused reference from memory inside its retention window;
-- older references are the gateway's pre-check against this table (LedgerReads.transferByReference).
CREATE TABLE transfers (
    id                uuid        PRIMARY KEY,
    tenant_id         bigint      NOT NULL,
    kind              text        NOT NULL CHECK (kind IN ('transfer', 'reversal', 'capture')),
    debit_account_id  bigint      NOT NULL,
    credit_account_id bigint      NOT NULL,
    amount_minor      bigint      NOT NULL CHECK (amount_minor > 0),
    currency          char(3)     NOT NULL,
    reference         text        NULL CHECK (reference IS NULL OR length(reference) BETWEEN 1 AND 64),
    reverses_id       uuid        NULL,
    hold_id           uuid        NULL,
    journal_index     bigint      NOT NULL CHECK (journal_index > 0),
    created_at        timestamptz NOT NULL,
    CONSTRAINT transfers_reference_unique UNIQUE (tenant_id, reference),
    CONSTRAINT transfers_two_accounts CHECK (debit_account_id <> credit_account_id),
    CONSTRAINT transfers_reversal_shape CHECK ((kind = 'reversal') = (reverses_id IS NOT NULL)),
    CONSTRAINT transfers_capture_shape CHECK ((kind = 'capture') = (hold_id IS NOT NULL)),
    CONSTRAINT transfers_reference_only_on_transfers CHECK (kind = 'transfer' OR reference IS NULL)
);
-- How much of a transfer was reversed (reads of transfers older than the in-memory window). Partial: only
-- reversal rows are indexed.
CREATE INDEX transfers_reverses ON transfers (reverses_id) WHERE reverses_id IS NOT NULL;

-- Immutable double-entry legs: two per transfer, summing to zero. Partitioned by RANGE on the UUIDv7 id
-- itself: its leading 48 bits are journaled unix ms, so a month is a contiguous id range and
-- PRIMARY KEY (id) is a valid unique key across partitions (the partition key is the key).
CREATE TABLE ledger_entries (
    id            uuid        NOT NULL,
    transfer_id   uuid        NOT NULL,
    tenant_id     bigint      NOT NULL,
    account_id    bigint      NOT NULL,
    amount_minor  bigint      NOT NULL CHECK (amount_minor <> 0),
    currency      char(3)     NOT NULL,
    journal_index bigint      NOT NULL,
    created_at    timestamptz NOT NULL,
    PRIMARY KEY (id)
) PARTITION BY RANGE (id);

-- Keyset paging of an account's entries: WHERE tenant_id = ? AND account_id = ? AND id > ? ORDER BY id.
CREATE INDEX ledger_entries_account ON ledger_entries (tenant_id, account_id, id);
-- Safety net: an id outside every monthly partition lands here instead of failing the batch.
CREATE TABLE ledger_entries_default PARTITION OF ledger_entries DEFAULT;

-- Holds (reservations) and how they ended. journal_index is the creating command's index: the events
-- that end a hold name it by that index.
CREATE TABLE holds (
    id                    uuid        PRIMARY KEY,
    journal_index         bigint      NOT NULL UNIQUE,
    tenant_id             bigint      NOT NULL,
    account_id            bigint      NOT NULL,
    amount_minor          bigint      NOT NULL CHECK (amount_minor > 0),
    currency              char(3)     NOT NULL,
    status                text        NOT NULL CHECK (status IN ('active', 'unknown', 'captured', 'voided', 'expired')),
    expires_at            timestamptz NOT NULL,
    captured_transfer_id  uuid        NULL,
    captured_amount_minor bigint      NULL,
    created_at            timestamptz NOT NULL,
    resolved_at           timestamptz NULL,
    last_journal_index    bigint      NOT NULL,
    CONSTRAINT holds_capture_shape CHECK ((status = 'captured') = (captured_transfer_id IS NOT NULL)),
    CONSTRAINT holds_captured_amount CHECK (
        captured_amount_minor IS NULL OR (captured_amount_minor > 0 AND captured_amount_minor <= amount_minor)),
    CONSTRAINT holds_resolution_shape CHECK ((status IN ('captured', 'voided', 'expired')) = (resolved_at IS NOT NULL)),
    CONSTRAINT holds_last_index CHECK (last_journal_index >= journal_index)
);
CREATE INDEX holds_live ON holds (tenant_id, account_id) WHERE status IN ('active', 'unknown');

-- Transactional outbox: one row per ledger event, written in the same transaction as the state it
-- describes. Partitioned like ledger_entries; old months are DROPPED (tally_drop_outbox_partitions),
-- never deleted row by row.
CREATE TABLE outbox (
    id             uuid        NOT NULL,
    tenant_id      bigint      NOT NULL,
    aggregate_type text        NOT NULL CHECK (aggregate_type IN ('account', 'transfer', 'hold')),
    aggregate_id   text        NOT NULL,
    event_type     text        NOT NULL CHECK (event_type IN ('AccountCreated', 'TransferPosted', 'TransferReversed',
                                   'HoldCreated', 'HoldCaptured', 'HoldVoided', 'HoldExpired', 'HoldMarkedUnknown')),
    payload        jsonb       NOT NULL CHECK (payload ? 'schemaVersion'),
    journal_index  bigint      NOT NULL,
    created_at     timestamptz NOT NULL,
    published_at   timestamptz NULL,
    attempts       integer     NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    PRIMARY KEY (id)
) PARTITION BY RANGE (id);
-- What the relay scans: unpublished rows in id (= journal) order. Published rows leave the index.
CREATE INDEX outbox_unpublished ON outbox (id) WHERE published_at IS NULL;
CREATE TABLE outbox_default PARTITION OF outbox DEFAULT;

-- Inbox for consumers: INSERT ... ON CONFLICT DO NOTHING in the same transaction as the consumer's work.
CREATE TABLE processed_messages (
    consumer     text        NOT NULL CHECK (length(consumer) BETWEEN 1 AND 200),
    message_id   text        NOT NULL CHECK (length(message_id) BETWEEN 1 AND 200),
    processed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer, message_id)
);

-- Delivery log of the outbox relay (webhooks): one row per attempt.
CREATE TABLE webhook_deliveries (
    id              bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id        uuid        NOT NULL,
    tenant_id       bigint      NOT NULL,
    endpoint_url    text        NOT NULL,
    attempt         integer     NOT NULL CHECK (attempt >= 1),
    attempted_at    timestamptz NOT NULL,
    status_code     integer     NULL CHECK (status_code IS NULL OR status_code BETWEEN 100 AND 599),
    error           text        NULL,
    duration_ms     integer     NOT NULL CHECK (duration_ms >= 0),
    succeeded       boolean     NOT NULL,
    next_attempt_at timestamptz NULL
);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id, attempt);

-- The last journal index whose effects are all in the tables above; moved in the same transaction as
-- the rows. Exactly one row.
CREATE TABLE ledger_watermark (
    id            boolean     PRIMARY KEY DEFAULT true CHECK (id),
    journal_index bigint      NOT NULL CHECK (journal_index >= 0),
    journal_time  timestamptz NULL,
    updated_at    timestamptz NOT NULL DEFAULT now()
);
INSERT INTO ledger_watermark (journal_index) VALUES (0);

-- Events older than this were dropped with their outbox partition (see tally_drop_outbox_partitions);
-- the verifier compares outbox rows with the other tables only from here on.
CREATE TABLE outbox_retention (
    id            boolean     PRIMARY KEY DEFAULT true CHECK (id),
    retained_from timestamptz NOT NULL DEFAULT '-infinity'
);
INSERT INTO outbox_retention DEFAULT VALUES;

-- Ledger entries and transfers are immutable: a correction is a reversal, never an UPDATE or DELETE.
-- Partition maintenance moving rows out of the DEFAULT partition sets tally.maintenance for its own
-- transaction only.
CREATE FUNCTION tally_reject_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('tally.maintenance', true) = 'on' THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION '% rows are immutable: % refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'integrity_constraint_violation';
END
$$;

CREATE TRIGGER ledger_entries_immutable BEFORE UPDATE OR DELETE ON ledger_entries
    FOR EACH ROW EXECUTE FUNCTION tally_reject_change();
CREATE TRIGGER ledger_entries_no_truncate BEFORE TRUNCATE ON ledger_entries
    FOR EACH STATEMENT EXECUTE FUNCTION tally_reject_change();
CREATE TRIGGER transfers_immutable BEFORE UPDATE OR DELETE ON transfers
    FOR EACH ROW EXECUTE FUNCTION tally_reject_change();
CREATE TRIGGER transfers_no_truncate BEFORE TRUNCATE ON transfers
    FOR EACH STATEMENT EXECUTE FUNCTION tally_reject_change();
