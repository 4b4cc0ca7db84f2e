-- The account lifecycle (issue 34): the status the ledger keeps in memory, as the writer last saw it. The
-- ledger refuses what a frozen or closed account may not do; these columns only report it, and the CHECKs are
-- the last line of defence, as in V1.
--   status          'active', 'frozen' (debits refused; credits too when credits_frozen) or 'closed' (for good)
--   status_index    journal index of the command that set the status (0: never changed since creation), so an
--                   older change replayed after a newer one never overwrites it
-- A constant default adds the columns without rewriting the table.
ALTER TABLE accounts
    ADD COLUMN status         text    NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'frozen', 'closed')),
    ADD COLUMN credits_frozen boolean NOT NULL DEFAULT false,
    ADD COLUMN status_index   bigint  NOT NULL DEFAULT 0 CHECK (status_index >= 0),
    ADD CONSTRAINT accounts_credits_frozen_only_when_frozen CHECK (NOT credits_frozen OR status = 'frozen');

-- The lifecycle's outbox events (EventType, append only). Dropped and added on the partitioned parent, so
-- every partition, present and future, checks the new list.
ALTER TABLE outbox DROP CONSTRAINT outbox_event_type_check;
ALTER TABLE outbox ADD CONSTRAINT outbox_event_type_check CHECK (event_type IN ('AccountCreated', 'TransferPosted',
    'TransferReversed', 'HoldCreated', 'HoldCaptured', 'HoldVoided', 'HoldExpired', 'HoldMarkedUnknown', 'AccountFrozen',
    'AccountUnfrozen', 'AccountClosed'));
