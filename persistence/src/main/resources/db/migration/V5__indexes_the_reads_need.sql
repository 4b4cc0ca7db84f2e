-- Indexes only where a query needs one. Every index entry is a B-tree insert and a WAL record the single writer
-- pays per row (docs/PERSISTENCE.md, "Napkin math"): with these, a plain transfer without a reference makes 5 (its
-- 2 entries, the transfer's key, the outbox's key and its unpublished index). What each table has, and why:
--
--   ledger_entries  UNIQUE (tenant_id, account_id, id): the account's entries in id order (keyset paging,
--                   LedgerReads.entries) AND the duplicate guard of the writer's direct COPY and of its
--                   deduplicating mode's ON CONFLICT DO NOTHING. An entry's id is unique, so (tenant, account, id)
--                   is unique exactly when id is: a duplicated entry (same deterministic id, hence same tenant and
--                   account) collides on it. Nothing looks an entry up by id alone. It holds the partition key
--                   (id), as a unique index on a partitioned table must.
--   transfers       primary key (id): reads by id, the verifier's joins, ON CONFLICT (id). The reference backstop
--                   is a partial unique index over the rows that HAVE a reference: a unique constraint never
--                   compares NULLs, so the rule is the unique constraint's, and a transfer without a reference adds
--                   no entry (tenant, NULL) to it. It is named transfers_reference_unique, the name LedgerWriter
--                   tells a reused reference from a duplicate row by. Queries by reference name one (reference = ?),
--                   which proves the index's predicate.
--   outbox          its key (the writer's duplicate guard, the relay's updates by id) and the partial index the
--                   relay scans, as V1 made them.
--
-- Building the new indexes reads each table once under this migration's lock.
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_pkey;
DROP INDEX ledger_entries_account;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_account_entry_key UNIQUE (tenant_id, account_id, id);

ALTER TABLE transfers DROP CONSTRAINT transfers_reference_unique;
CREATE UNIQUE INDEX transfers_reference_unique ON transfers (tenant_id, reference) WHERE reference IS NOT NULL;
