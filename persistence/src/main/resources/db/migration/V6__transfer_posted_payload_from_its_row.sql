-- A TransferPosted event's payload says what its transfers row says, member for member (ids, accounts, amount,
-- currency, reference, metadata): stored, it would be ~350 bytes of jsonb per plain transfer in the heap and the WAL,
-- parsed by PostgreSQL, about an eighth of the writer's PostgreSQL CPU per transfer (docs/PERSISTENCE.md, "Napkin
-- math"). So its outbox row carries the event's own columns and a NULL payload, and the payload is rendered from the
-- transfers row when it is read (tally_outbox_payload: the relay's claim, the outbox_events view): the members and
-- values a stored payload would have, hence the same jsonb text (jsonb keeps one normal form). Every other event
-- stores its payload (its facts are in no single row, or it is rare).
--
-- The transfers row outlives the outbox row (outbox months are dropped, transfers never), and both are written in
-- the writer's one transaction per batch, so a TransferPosted row always finds its transfer: the verifier checks it.

ALTER TABLE outbox ALTER COLUMN payload DROP NOT NULL;
ALTER TABLE outbox DROP CONSTRAINT outbox_payload_check;
ALTER TABLE outbox ADD CONSTRAINT outbox_payload_shape CHECK (
    CASE WHEN payload IS NULL THEN event_type = 'TransferPosted' ELSE payload ? 'schemaVersion' END);

-- The minor-unit exponent of the currencies the ledger accepts (dev.tally.ledger.currency.CurrencyCode, which a test
-- holds this function to, code by code); 0 for any other code, as the writer's payloads have it.
CREATE FUNCTION tally_minor_digits(p_currency text) RETURNS int LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE
        WHEN p_currency IN ('TRY', 'USD', 'EUR', 'GBP', 'CHF', 'CNY', 'CAD', 'AUD', 'SEK', 'NOK', 'DKK', 'PLN', 'CZK', 'HUF', 'RON',
                            'BGN', 'AED', 'SAR', 'INR', 'BRL', 'MXN', 'ZAR', 'HKD', 'SGD', 'NZD', 'ILS') THEN 2
        WHEN p_currency IN ('KWD', 'BHD', 'OMR', 'JOD', 'TND') THEN 3
        ELSE 0
    END
$$;

-- An amount in minor units as the API writes it: a decimal string in major units with the currency's digits.
CREATE FUNCTION tally_amount_text(p_amount_minor bigint, p_currency text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT round(p_amount_minor::numeric / power(10::numeric, tally_minor_digits(p_currency)), tally_minor_digits(p_currency))::text
$$;

-- An outbox row's payload: the stored one, or for a TransferPosted row the one its transfers row gives (schema
-- version 1, the members dev.tally.persistence.writer.EventPayloads documents). NULL only if that transfer is missing.
CREATE FUNCTION tally_outbox_payload(p_payload jsonb, p_id uuid, p_tenant_id bigint, p_event_type text, p_aggregate_id text,
                                     p_journal_index bigint, p_created_at timestamptz)
RETURNS jsonb LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT coalesce(p_payload, (
        SELECT jsonb_build_object(
            'schemaVersion', 1, 'eventId', p_id, 'type', p_event_type, 'tenantId', p_tenant_id, 'journalIndex', p_journal_index,
            'occurredAt', to_char(p_created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
            'transferId', t.id, 'debitAccountId', t.debit_account_id, 'creditAccountId', t.credit_account_id,
            'amount', tally_amount_text(t.amount_minor, t.currency), 'amountMinor', t.amount_minor, 'currency', t.currency,
            'reference', t.reference, 'metadata', t.metadata)
          FROM transfers t
         WHERE p_event_type = 'TransferPosted' AND t.id = p_aggregate_id::uuid AND t.tenant_id = p_tenant_id))
$$;

-- The outbox as consumers see it: every row with its payload. For operators and reports; the relay calls the
-- function in its claim.
CREATE VIEW outbox_events AS
SELECT o.id, o.tenant_id, o.aggregate_type, o.aggregate_id, o.event_type,
       tally_outbox_payload(o.payload, o.id, o.tenant_id, o.event_type, o.aggregate_id, o.journal_index, o.created_at) AS payload,
       o.journal_index, o.created_at, o.published_at, o.attempts, o.next_attempt_at, o.last_error
  FROM outbox o;
