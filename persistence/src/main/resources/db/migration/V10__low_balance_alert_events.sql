-- Low-balance alerts (issue 34): the outbox events of a crossing (EventType, append only). The threshold and the alert's
-- state live in the ledger (GET /v1/accounts/{id} reads them from memory, snapshots carry them); the read model has no
-- column for them, only the events. Dropped and added on the partitioned parent, as V8 did, so every partition,
-- present and future, checks the new list (V9's AccountMetadataUpdated kept).
ALTER TABLE outbox DROP CONSTRAINT outbox_event_type_check;
ALTER TABLE outbox ADD CONSTRAINT outbox_event_type_check CHECK (event_type IN ('AccountCreated', 'TransferPosted',
    'TransferReversed', 'HoldCreated', 'HoldCaptured', 'HoldVoided', 'HoldExpired', 'HoldMarkedUnknown', 'AccountFrozen',
    'AccountUnfrozen', 'AccountClosed', 'AccountMetadataUpdated', 'AccountBalanceLow', 'AccountBalanceRecovered'));
