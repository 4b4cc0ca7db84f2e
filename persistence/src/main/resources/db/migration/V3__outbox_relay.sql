-- The outbox relay's bookkeeping on each event (see docs/WEBHOOKS.md).
--
-- next_attempt_at: NULL = due now. The relay sets it when it claims an event (a lease: other relays skip
-- the event until it passes, so a relay that dies mid-delivery only delays it) and, after a failed
-- delivery, to the retry time of the backoff schedule. Published rows have it NULL again.
-- last_error: the last failed attempt's reason, for operators (the full history is webhook_deliveries).
--
-- Both columns are nullable without a default, so adding them rewrites nothing, and the writer's COPY
-- (which names its columns) is unaffected. No new index: the relay finds heads of aggregates inside a
-- prefix of the existing partial index outbox_unpublished (see OutboxSql), so the writer pays nothing more
-- per row.
ALTER TABLE outbox
    ADD COLUMN next_attempt_at timestamptz NULL,
    ADD COLUMN last_error      text        NULL CHECK (last_error IS NULL OR length(last_error) <= 1000);
