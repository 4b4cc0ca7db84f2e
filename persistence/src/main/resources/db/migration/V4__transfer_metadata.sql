-- A transfer's metadata: the client's JSON object of string members, which the gateway validates and
-- canonicalises (at most 1,024 bytes, LedgerLimits.METADATA_LENGTH_MAX). NULL when the transfer has none;
-- only plain transfers carry it (a reversal or a capture never does). The writer copies it from the
-- journaled command without parsing it.
--
-- jsonb rather than text: operators and reporting query inside it (metadata->>'orderId', metadata @> '{...}',
-- an expression or GIN index added when a query needs one), and PostgreSQL checks it is JSON on the way in,
-- one more line of defence behind the gateway. The cost: PostgreSQL keeps jsonb in its own normal form
-- (keys by length then bytes, ", " and ": " between members), so metadata::text is equivalent to the
-- canonical text the client was answered with, not byte for byte the same. The journal keeps the canonical bytes.
--
-- Nullable without a default, so adding it rewrites nothing. It lands after created_at, the table's last
-- column: the writer's COPY into transfers and its staging table (LIKE transfers) list the columns in
-- table order, metadata last. The CHECKs are NOT VALID so that adding them does not scan the table under
-- this migration's exclusive lock: every row already there has metadata NULL, and new rows are checked.
ALTER TABLE transfers
    ADD COLUMN metadata jsonb NULL;
ALTER TABLE transfers
    ADD CONSTRAINT transfers_metadata_object CHECK (metadata IS NULL OR jsonb_typeof(metadata) = 'object') NOT VALID,
    ADD CONSTRAINT transfers_metadata_only_on_transfers CHECK (kind = 'transfer' OR metadata IS NULL) NOT VALID;
