-- Account metadata (issue 34): the client's JSON object of string members, in the form transfers' metadata has (V4):
-- validated and canonicalised by the gateway (at most 1,024 bytes), journaled with the command, and copied here by the
-- writer without parsing it, at creation and at every update (PUT /v1/accounts/{id}/metadata). The ledger keeps only
-- whether an account has some, so GET /v1/accounts/{id} reads it from here (docs/ARCHITECTURE.md, "Account metadata").
--   metadata        NULL when the account has none (never given, or removed by an update with {})
--   metadata_index  journal index of the update that set it (0: as created), so an older update replayed after a newer
--                   one never overwrites it, as status_index does for the status (V8)
-- Nullable without a default, and a constant default: adding them rewrites nothing. The object CHECK is NOT VALID, as
-- V4's: every row already there has metadata NULL, and new rows are checked.
ALTER TABLE accounts
    ADD COLUMN metadata       jsonb  NULL,
    ADD COLUMN metadata_index bigint NOT NULL DEFAULT 0 CHECK (metadata_index >= 0);
ALTER TABLE accounts
    ADD CONSTRAINT accounts_metadata_object CHECK (metadata IS NULL OR jsonb_typeof(metadata) = 'object') NOT VALID;

-- GET /v1/accounts?metadata=name:value matches by containment (metadata @> '{"name":"value"}', one per member asked
-- for). Without an index the listing walks the tenant's accounts in id order and filters each, so a member few accounts
-- hold costs a scan of all of them per page (a million rows for the default table). The GIN index answers containment
-- with the matching rows alone; jsonb_path_ops is the smaller kind and serves exactly @>. Partial: accounts without
-- metadata (most, and every one created before this migration) add no entry, and the writer pays for it only when it
-- writes an account's metadata, which no transfer does (docs/PERSISTENCE.md, "The read side").
CREATE INDEX accounts_metadata ON accounts USING gin (metadata jsonb_path_ops) WHERE metadata IS NOT NULL;

-- The metadata's outbox event (EventType, append only). Dropped and added on the partitioned parent, so every
-- partition, present and future, checks the new list.
ALTER TABLE outbox DROP CONSTRAINT outbox_event_type_check;
ALTER TABLE outbox ADD CONSTRAINT outbox_event_type_check CHECK (event_type IN ('AccountCreated', 'TransferPosted',
    'TransferReversed', 'HoldCreated', 'HoldCaptured', 'HoldVoided', 'HoldExpired', 'HoldMarkedUnknown', 'AccountFrozen',
    'AccountUnfrozen', 'AccountClosed', 'AccountMetadataUpdated'));
