-- Outbox payloads, schema version 2: tenantId and every account id are JSON strings of their decimal digits (version 1
-- wrote JSON numbers, which a JavaScript consumer reads through a double, exact only up to 2^53). The writer stores the
-- other events' payloads in version 2 (dev.tally.persistence.writer.EventPayloads); a TransferPosted row's payload is
-- rendered from its transfers row when read, so this function renders every TransferPosted row, old or new, in version
-- 2. Stored version-1 payloads stay as they were written and are delivered as such (each payload names its version).
CREATE OR REPLACE FUNCTION tally_outbox_payload(p_payload jsonb, p_id uuid, p_tenant_id bigint, p_event_type text,
                                                p_aggregate_id text, p_journal_index bigint, p_created_at timestamptz)
RETURNS jsonb LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT coalesce(p_payload, (
        SELECT jsonb_build_object(
            'schemaVersion', 2, 'eventId', p_id, 'type', p_event_type, 'tenantId', p_tenant_id::text,
            'journalIndex', p_journal_index,
            'occurredAt', to_char(p_created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
            'transferId', t.id, 'debitAccountId', t.debit_account_id::text, 'creditAccountId', t.credit_account_id::text,
            'amount', tally_amount_text(t.amount_minor, t.currency), 'amountMinor', t.amount_minor, 'currency', t.currency,
            'reference', t.reference, 'metadata', t.metadata)
          FROM transfers t
         WHERE p_event_type = 'TransferPosted' AND t.id = p_aggregate_id::uuid AND t.tenant_id = p_tenant_id))
$$;
