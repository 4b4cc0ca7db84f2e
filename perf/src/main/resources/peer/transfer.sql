-- The peer's transfer as ONE PL/pgSQL call, so one transaction is one round trip:
--
--   1. claim the key: INSERT ... ON CONFLICT DO NOTHING RETURNING (a concurrent request with the same key
--      waits here for the first to commit, then sees its row). The row is written with the response a
--      success will have; the transaction is invisible until COMMIT, so nobody can read it early, and a
--      rejection overwrites it before COMMIT. This saves the UPDATE that would "complete" the key.
--   2. a taken key: same fingerprint -> the stored response (a replay); other fingerprint -> 422.
--   3. a reference already used by a debit row -> 409 duplicate-reference, stored.
--   4. the two ledger rows and the outbox row ("take the lock late", article 004: the inserts go before
--      the balance updates, so the row locks are held for as little of the transaction as possible).
--   5. debit and credit, in ascending account id order (two opposite transfers can never deadlock); the
--      debit is guarded: UPDATE ... WHERE balance >= amount (or the account may go negative).
--   6. a failed update: undo the other, delete the rows of step 4, store the rejection (peer_reject).
--
-- The caller runs it in autocommit mode: the statement IS the transaction; COMMIT (and with
-- synchronous_commit = on, the WAL flush) happens when it returns.

-- Problem bodies (RFC 9457), the same types, titles and details as Tally's (docs/openapi.yaml).
CREATE OR REPLACE FUNCTION peer_problem(p_slug text, p_status int, p_title text, p_detail text, p_extensions text)
RETURNS text LANGUAGE sql IMMUTABLE AS $fn$
    SELECT '{"type":"https://tally.dev/problems/' || p_slug || '","title":"' || p_title || '","status":' || p_status ||
           ',"detail":"' || p_detail || '"' || coalesce(p_extensions, '') || '}'
$fn$;

-- Works out why a transfer was not applied, removes what it had written, and stores the rejection under
-- its key. The caller has already undone any balance update.
CREATE OR REPLACE FUNCTION peer_reject(
    p_tenant bigint, p_key text, p_debit bigint, p_credit bigint, p_currency text, p_amount_text text,
    p_entry_ids bigint[], p_event_id bigint,
    OUT status_code int, OUT body text)
LANGUAGE plpgsql AS $fn$
DECLARE
    v_debit_currency  text;
    v_credit_currency text;
BEGIN
    DELETE FROM ledger_entries WHERE entry_id = ANY (p_entry_ids);
    DELETE FROM outbox WHERE event_id = p_event_id;
    SELECT currency INTO v_debit_currency FROM accounts WHERE id = p_debit AND tenant_id = p_tenant;
    SELECT currency INTO v_credit_currency FROM accounts WHERE id = p_credit AND tenant_id = p_tenant;
    status_code := 422;
    IF v_debit_currency IS NULL OR v_credit_currency IS NULL THEN
        body := peer_problem('account-not-found', 422, 'Account not found', 'an account named by the request does not exist', NULL);
    ELSIF v_debit_currency <> p_currency OR v_credit_currency <> p_currency THEN
        body := peer_problem('currency-mismatch', 422, 'Currency mismatch',
            'the currency does not match the currency of the accounts or hold involved', NULL);
    ELSE
        body := peer_problem('insufficient-funds', 422, 'Insufficient funds', 'the account does not have enough available funds',
            ',"accountId":' || p_debit || ',"amount":"' || p_amount_text || '","currency":"' || p_currency || '"');
    END IF;
    UPDATE idempotency_keys SET response_code = status_code, response_body = body, transfer_id = NULL
     WHERE tenant_id = p_tenant AND idem_key = p_key;
END
$fn$;

-- A taken key: the stored response when the fingerprint matches (replayed = true), else 422 with no body
-- (the caller renders idempotency-key-reused; it is not stored).
CREATE OR REPLACE FUNCTION peer_stored(p_tenant bigint, p_key text, p_fingerprint bytea,
    OUT status_code int, OUT body text, OUT replayed boolean)
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
    v_fingerprint bytea;
BEGIN
    SELECT k.fingerprint, k.response_code, k.response_body INTO v_fingerprint, status_code, body
      FROM idempotency_keys k WHERE k.tenant_id = p_tenant AND k.idem_key = p_key;
    IF v_fingerprint = p_fingerprint THEN
        replayed := true;
    ELSE
        status_code := 422; body := NULL; replayed := false;
    END IF;
END
$fn$;

CREATE OR REPLACE FUNCTION peer_transfer(
    p_tenant bigint, p_key text, p_fingerprint bytea, p_transfer_id uuid,
    p_debit bigint, p_credit bigint, p_amount bigint, p_currency text, p_reference text,
    p_created_at timestamptz, p_ok_body text, p_amount_text text,
    OUT status_code int, OUT body text, OUT replayed boolean)
LANGUAGE plpgsql AS $fn$
DECLARE
    v_claimed   boolean;
    v_existing  uuid;
    v_entry_1   bigint;
    v_entry_2   bigint;
    v_event     bigint;
BEGIN
    -- 1. claim
    INSERT INTO idempotency_keys (tenant_id, idem_key, operation, fingerprint, status, response_code, response_body, transfer_id, created_at)
    VALUES (p_tenant, p_key, 'transfer', p_fingerprint, 'completed', 201, p_ok_body, p_transfer_id, p_created_at)
    ON CONFLICT (tenant_id, idem_key) DO NOTHING
    RETURNING true INTO v_claimed;
    IF v_claimed IS NULL THEN
        -- 2. taken
        SELECT s.status_code, s.body, s.replayed INTO status_code, body, replayed FROM peer_stored(p_tenant, p_key, p_fingerprint) s;
        RETURN;
    END IF;
    replayed := false;

    -- 3. reference
    IF p_reference IS NOT NULL THEN
        SELECT e.transfer_id INTO v_existing FROM ledger_entries e
         WHERE e.tenant_id = p_tenant AND e.reference = p_reference AND e.amount_minor < 0;
        IF FOUND THEN
            status_code := 409;
            body := peer_problem('duplicate-reference', 409, 'Duplicate reference', 'another transfer already uses this reference',
                ',"existingTransferId":"' || v_existing || '","reference":' || to_json(p_reference)::text);
            UPDATE idempotency_keys SET response_code = 409, response_body = body, transfer_id = NULL
             WHERE tenant_id = p_tenant AND idem_key = p_key;
            RETURN;
        END IF;
    END IF;

    -- 4. ledger rows and outbox row
    INSERT INTO ledger_entries (transfer_id, tenant_id, idem_key, account_id, amount_minor, currency, reference, created_at)
    VALUES (p_transfer_id, p_tenant, p_key, p_debit, -p_amount, p_currency, p_reference, p_created_at)
    RETURNING entry_id INTO v_entry_1;
    INSERT INTO ledger_entries (transfer_id, tenant_id, idem_key, account_id, amount_minor, currency, reference, created_at)
    VALUES (p_transfer_id, p_tenant, p_key, p_credit, p_amount, p_currency, p_reference, p_created_at)
    RETURNING entry_id INTO v_entry_2;
    INSERT INTO outbox (aggregate_id, event_type, payload, created_at)
    VALUES (p_transfer_id, 'transfer.posted', p_ok_body::jsonb, p_created_at)
    RETURNING event_id INTO v_event;

    -- 5. balances, lower account id first; the debit is the guarded UPDATE
    IF p_debit < p_credit THEN
        UPDATE accounts SET balance = balance - p_amount
         WHERE id = p_debit AND tenant_id = p_tenant AND currency = p_currency AND (balance >= p_amount OR NOT constrained);
        IF NOT FOUND THEN
            SELECT r.status_code, r.body INTO status_code, body
              FROM peer_reject(p_tenant, p_key, p_debit, p_credit, p_currency, p_amount_text, ARRAY[v_entry_1, v_entry_2], v_event) r;
            RETURN;
        END IF;
        UPDATE accounts SET balance = balance + p_amount WHERE id = p_credit AND tenant_id = p_tenant AND currency = p_currency;
        IF NOT FOUND THEN
            -- 6. undo the debit (same transaction: the row is still locked by us)
            UPDATE accounts SET balance = balance + p_amount WHERE id = p_debit;
            SELECT r.status_code, r.body INTO status_code, body
              FROM peer_reject(p_tenant, p_key, p_debit, p_credit, p_currency, p_amount_text, ARRAY[v_entry_1, v_entry_2], v_event) r;
            RETURN;
        END IF;
    ELSE
        UPDATE accounts SET balance = balance + p_amount WHERE id = p_credit AND tenant_id = p_tenant AND currency = p_currency;
        IF NOT FOUND THEN
            SELECT r.status_code, r.body INTO status_code, body
              FROM peer_reject(p_tenant, p_key, p_debit, p_credit, p_currency, p_amount_text, ARRAY[v_entry_1, v_entry_2], v_event) r;
            RETURN;
        END IF;
        UPDATE accounts SET balance = balance - p_amount
         WHERE id = p_debit AND tenant_id = p_tenant AND currency = p_currency AND (balance >= p_amount OR NOT constrained);
        IF NOT FOUND THEN
            -- 6. undo the credit
            UPDATE accounts SET balance = balance - p_amount WHERE id = p_credit;
            SELECT r.status_code, r.body INTO status_code, body
              FROM peer_reject(p_tenant, p_key, p_debit, p_credit, p_currency, p_amount_text, ARRAY[v_entry_1, v_entry_2], v_event) r;
            RETURN;
        END IF;
    END IF;
    status_code := 201;
    body := p_ok_body;
END
$fn$;

-- Account creation: claim the key, insert the account (ids are unique across tenants, as in Tally).
CREATE OR REPLACE FUNCTION peer_create_account(
    p_tenant bigint, p_key text, p_fingerprint bytea, p_id bigint, p_currency text, p_constrained boolean,
    p_created_at timestamptz, p_ok_body text,
    OUT status_code int, OUT body text, OUT replayed boolean)
LANGUAGE plpgsql AS $fn$
DECLARE
    v_claimed boolean;
    v_created boolean;
BEGIN
    INSERT INTO idempotency_keys (tenant_id, idem_key, operation, fingerprint, status, response_code, response_body, transfer_id, created_at)
    VALUES (p_tenant, p_key, 'account', p_fingerprint, 'completed', 201, p_ok_body, NULL, p_created_at)
    ON CONFLICT (tenant_id, idem_key) DO NOTHING
    RETURNING true INTO v_claimed;
    IF v_claimed IS NULL THEN
        SELECT s.status_code, s.body, s.replayed INTO status_code, body, replayed FROM peer_stored(p_tenant, p_key, p_fingerprint) s;
        RETURN;
    END IF;
    replayed := false;
    INSERT INTO accounts (id, tenant_id, currency, constrained, balance, created_at)
    VALUES (p_id, p_tenant, p_currency, p_constrained, 0, p_created_at)
    ON CONFLICT (id) DO NOTHING
    RETURNING true INTO v_created;
    IF v_created IS NULL THEN
        status_code := 409;
        body := peer_problem('account-exists', 409, 'Account exists', 'an account with this id already exists', ',"accountId":' || p_id);
        UPDATE idempotency_keys SET response_code = 409, response_body = body WHERE tenant_id = p_tenant AND idem_key = p_key;
        RETURN;
    END IF;
    status_code := 201;
    body := p_ok_body;
END
$fn$;

-- Setup only (POST /v1/batch): many operations of one kind in one round trip and ONE transaction, each
-- through the same function as a single request. Never used by a measured run.
CREATE OR REPLACE FUNCTION peer_create_accounts(
    p_tenant bigint, p_keys text[], p_fingerprints_hex text[], p_ids bigint[], p_currencies text[], p_constrained boolean[],
    p_created_at timestamptz, p_ok_bodies text[])
RETURNS TABLE (status_code int, body text, replayed boolean)
LANGUAGE plpgsql AS $fn$
BEGIN
    FOR i IN 1 .. coalesce(array_length(p_keys, 1), 0) LOOP
        RETURN QUERY SELECT a.status_code, a.body, a.replayed
          FROM peer_create_account(p_tenant, p_keys[i], decode(p_fingerprints_hex[i], 'hex'), p_ids[i], p_currencies[i],
                                   p_constrained[i], p_created_at, p_ok_bodies[i]) a;
    END LOOP;
END
$fn$;

CREATE OR REPLACE FUNCTION peer_transfers(
    p_tenant bigint, p_keys text[], p_fingerprints_hex text[], p_transfer_ids text[], p_debits bigint[], p_credits bigint[],
    p_amounts bigint[], p_currencies text[], p_references text[], p_created_at timestamptz, p_ok_bodies text[], p_amount_texts text[])
RETURNS TABLE (status_code int, body text, replayed boolean)
LANGUAGE plpgsql AS $fn$
BEGIN
    FOR i IN 1 .. coalesce(array_length(p_keys, 1), 0) LOOP
        RETURN QUERY SELECT t.status_code, t.body, t.replayed
          FROM peer_transfer(p_tenant, p_keys[i], decode(p_fingerprints_hex[i], 'hex'), p_transfer_ids[i]::uuid, p_debits[i],
                             p_credits[i], p_amounts[i], p_currencies[i], p_references[i], p_created_at, p_ok_bodies[i],
                             p_amount_texts[i]) t;
    END LOOP;
END
$fn$;
