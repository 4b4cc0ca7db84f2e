-- The PostgreSQL-per-request peer: the design most payment teams ship (source articles 000 sections 4-8,
-- 004 "flash sale"). Every transfer is ONE transaction on these four tables; see transfer.sql.

-- Balances. The CHECK is the last line of defence behind the guarded debit: a bug in the SQL can never
-- leave a constrained account below zero. fillfactor 80 leaves room on each page so that the balance
-- UPDATE is a HOT update (no index maintenance, no new index entries).
CREATE TABLE accounts (
    id           bigint      PRIMARY KEY,
    tenant_id    bigint      NOT NULL,
    currency     char(3)     NOT NULL,
    constrained  boolean     NOT NULL,
    balance      bigint      NOT NULL DEFAULT 0,
    created_at   timestamptz NOT NULL,
    CONSTRAINT accounts_balance_guard CHECK (balance >= 0 OR NOT constrained)
) WITH (fillfactor = 80);

-- Idempotency: (tenant, key) claimed with INSERT ... ON CONFLICT DO NOTHING RETURNING; the fingerprint
-- tells a retry (replay the stored response) from a reuse (422); the response is stored in the same
-- transaction as the effects, so a key is never "completed" without them nor applied twice.
CREATE TABLE idempotency_keys (
    tenant_id      bigint      NOT NULL,
    idem_key       text        NOT NULL,
    operation      text        NOT NULL,           -- 'transfer' | 'account'
    fingerprint    bytea       NOT NULL,           -- SHA-256 of the operation and the canonical payload
    status         text        NOT NULL,           -- 'completed': the one transaction never shows another state
    response_code  smallint    NOT NULL,
    response_body  text        NOT NULL,
    transfer_id    uuid,
    created_at     timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, idem_key)
);

-- Immutable double-entry rows: two per transfer (debit negative, credit positive), never updated.
-- The partial unique index is the reference backstop: one debit row per (tenant, reference).
CREATE TABLE ledger_entries (
    entry_id      bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    transfer_id   uuid        NOT NULL,
    tenant_id     bigint      NOT NULL,
    idem_key      text        NOT NULL,
    account_id    bigint      NOT NULL,
    amount_minor  bigint      NOT NULL,
    currency      char(3)     NOT NULL,
    reference     text,
    created_at    timestamptz NOT NULL
);
CREATE INDEX ledger_entries_by_account ON ledger_entries (account_id, entry_id);
CREATE UNIQUE INDEX ledger_entries_reference ON ledger_entries (tenant_id, reference)
    WHERE amount_minor < 0 AND reference IS NOT NULL;

-- Transactional outbox: written with the effects, relayed later (FOR UPDATE SKIP LOCKED); the partial
-- index keeps the relay's scan proportional to the backlog, not to the history.
CREATE TABLE outbox (
    event_id      bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    aggregate_id  uuid        NOT NULL,
    event_type    text        NOT NULL,
    payload       jsonb       NOT NULL,
    created_at    timestamptz NOT NULL,
    published_at  timestamptz
);
CREATE INDEX outbox_unpublished ON outbox (event_id) WHERE published_at IS NULL;
