-- The PostgreSQL-per-request peer: the design most payment teams ship (source articles 000 sections 4-8,
-- 004 "flash sale"), with its hot accounts split into sub-rows. Every transfer is ONE transaction on these
-- four tables, and so is every batch request; see transfer.sql.

-- Balances: an account is N rows, one per slot (N = its subBalances: 1 for most accounts, 16 for a hot
-- merchant account), the design of source article 000 ("hot accounts: the balance is spread over N sub-rows;
-- each operation goes to one of them by hash; the balance is the sum of the sub-rows") and of 004's stock
-- buckets. A credit goes to the slot its idempotency key hashes to; a guarded debit starts there and tries
-- the other slots when that one cannot pay (transfer.sql). The account's attributes are on every row (they
-- never change): each side of a transfer is then one UPDATE of one row found by its primary key, as for a
-- one-row account. The CHECK is the last line of defence behind the guarded debit: no slot of a constrained
-- account can go below zero. fillfactor 80 leaves room on each page so that the balance UPDATE is a HOT
-- update (no index maintenance, no new index entries).
CREATE TABLE accounts (
    id           bigint      NOT NULL,
    slot         smallint    NOT NULL,
    slots        smallint    NOT NULL CHECK (slots BETWEEN 1 AND 64),
    tenant_id    bigint      NOT NULL,
    currency     char(3)     NOT NULL,
    constrained  boolean     NOT NULL,
    balance      bigint      NOT NULL DEFAULT 0,
    created_at   timestamptz NOT NULL,
    PRIMARY KEY (id, slot),
    CONSTRAINT accounts_slot_range CHECK (slot >= 0 AND slot < slots),
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
-- Indexes, each for a query the design serves: the account's entries in order (GET .../entries, which Tally
-- serves from its read model too), and the reference backstop (one debit row per (tenant, reference); no row
-- enters it when transfers carry no reference). No primary key index: nothing looks an entry up by its id
-- (a rejected transfer deletes the rows it had just written by their ctid), and each index is one more
-- B-tree insert per row.
CREATE TABLE ledger_entries (
    entry_id      bigint      GENERATED ALWAYS AS IDENTITY,
    transfer_id   uuid        NOT NULL,
    tenant_id     bigint      NOT NULL,
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
-- index keeps the relay's scan proportional to the backlog, not to the history, and serves the relay's
-- "mark published" by event_id as well, so there is no primary key index to maintain beside it.
CREATE TABLE outbox (
    event_id      bigint      GENERATED ALWAYS AS IDENTITY,
    aggregate_id  uuid        NOT NULL,
    event_type    text        NOT NULL,
    payload       jsonb       NOT NULL,
    created_at    timestamptz NOT NULL,
    published_at  timestamptz
);
CREATE INDEX outbox_unpublished ON outbox (event_id) WHERE published_at IS NULL;
