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
--   5. debit and credit, in ascending account id order (two opposite transfers can never deadlock), each on
--      one slot row: the credit on the slot its key hashes to, the debit guarded (UPDATE ... WHERE balance >=
--      amount, or the account may go negative) on that slot first and on the account's other slots in turn
--      when it cannot pay (peer_debit_other_slots). A transaction holds at most one slot of an account, and
--      takes accounts in ascending id order, so slots add no deadlock.
--   6. a failed update: undo the other, delete the rows of step 4, store the rejection (peer_reject).
--
-- The caller runs it in autocommit mode: the statement IS the transaction; COMMIT (and with
-- synchronous_commit = on, the WAL flush) happens when it returns.
--
-- A batch request (peer_transfers) is ONE transaction too: its balance rows locked first in (id, slot)
-- order, then its transfers applied set-wise (one INSERT per table, one UPDATE for all balances) when
-- nothing in it can be refused, else one by one through peer_transfer.

-- Where a key's credit lands and where its debit starts: PostgreSQL's own hash of the key's text, 0 .. 2^32 - 1.
CREATE OR REPLACE FUNCTION peer_key_hash(p_key text) RETURNS bigint LANGUAGE sql IMMUTABLE AS $fn$
    SELECT hashtext(p_key)::bigint + 2147483648
$fn$;

-- Problem bodies (RFC 9457), the same types, titles and details as Tally's (docs/openapi.yaml).
CREATE OR REPLACE FUNCTION peer_problem(p_slug text, p_status int, p_title text, p_detail text, p_extensions text)
RETURNS text LANGUAGE sql IMMUTABLE AS $fn$
    SELECT '{"type":"https://tally.dev/problems/' || p_slug || '","title":"' || p_title || '","status":' || p_status ||
           ',"detail":"' || p_detail || '"' || coalesce(p_extensions, '') || '}'
$fn$;

-- A guarded debit whose first slot could not pay: the account's other slots in turn, from the next one on
-- (article 004's stock buckets: "take from a random bucket; when it is empty, try the others"). True when one
-- The slot that paid, or NULL when none could. A debit is never split across slots: an account whose money is
-- spread thinner than the amount is refused although its sum could pay (Tally's sub-balances do split a debit).
CREATE OR REPLACE FUNCTION peer_debit_other_slots(p_tenant bigint, p_account bigint, p_currency text, p_amount bigint, p_hash bigint)
RETURNS smallint LANGUAGE plpgsql AS $fn$
DECLARE
    v_slots int;
    v_paid  smallint;
BEGIN
    SELECT slots INTO v_slots FROM accounts WHERE id = p_account AND slot = 0 AND tenant_id = p_tenant AND currency = p_currency;
    FOR i IN 1 .. coalesce(v_slots, 1) - 1 LOOP
        UPDATE accounts SET balance = balance - p_amount
         WHERE id = p_account AND slot = mod(p_hash + i, v_slots) AND (balance >= p_amount OR NOT constrained)
        RETURNING slot INTO v_paid;
        IF v_paid IS NOT NULL THEN
            RETURN v_paid;
        END IF;
    END LOOP;
    RETURN NULL;
END
$fn$;

-- Works out why a transfer was not applied, removes what it had written, and stores the rejection under
-- its key. The caller has already undone any balance update.
CREATE OR REPLACE FUNCTION peer_reject(
    p_tenant bigint, p_key text, p_debit bigint, p_credit bigint, p_currency text, p_amount_text text,
    p_entry_rows tid[], p_event_row tid,
    OUT status_code int, OUT body text)
LANGUAGE plpgsql AS $fn$
DECLARE
    v_debit_currency  text;
    v_credit_currency text;
BEGIN
    -- this transaction's own rows, found by their physical address (no index on either table serves an id)
    DELETE FROM ledger_entries WHERE ctid = ANY (p_entry_rows);
    DELETE FROM outbox WHERE ctid = p_event_row;
    SELECT currency INTO v_debit_currency FROM accounts WHERE id = p_debit AND slot = 0 AND tenant_id = p_tenant;
    SELECT currency INTO v_credit_currency FROM accounts WHERE id = p_credit AND slot = 0 AND tenant_id = p_tenant;
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
    v_entry_1   tid;
    v_entry_2   tid;
    v_event     tid;
    v_hash      bigint;
    v_paid      smallint;
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
    INSERT INTO ledger_entries (transfer_id, tenant_id, account_id, amount_minor, currency, reference, created_at)
    VALUES (p_transfer_id, p_tenant, p_debit, -p_amount, p_currency, p_reference, p_created_at)
    RETURNING ctid INTO v_entry_1;
    INSERT INTO ledger_entries (transfer_id, tenant_id, account_id, amount_minor, currency, reference, created_at)
    VALUES (p_transfer_id, p_tenant, p_credit, p_amount, p_currency, p_reference, p_created_at)
    RETURNING ctid INTO v_entry_2;
    INSERT INTO outbox (aggregate_id, event_type, payload, created_at)
    VALUES (p_transfer_id, 'transfer.posted', p_ok_body::jsonb, p_created_at)
    RETURNING ctid INTO v_event;

    -- 5. balances, lower account id first; each on one slot; the debit is the guarded UPDATE
    v_hash := peer_key_hash(p_key);
    IF p_debit < p_credit THEN
        UPDATE accounts SET balance = balance - p_amount
         WHERE id = p_debit AND slot = mod(v_hash, slots) AND tenant_id = p_tenant AND currency = p_currency
           AND (balance >= p_amount OR NOT constrained)
        RETURNING slot INTO v_paid;
        v_paid := coalesce(v_paid, peer_debit_other_slots(p_tenant, p_debit, p_currency, p_amount, v_hash));
        IF v_paid IS NULL THEN
            SELECT r.status_code, r.body INTO status_code, body
              FROM peer_reject(p_tenant, p_key, p_debit, p_credit, p_currency, p_amount_text, ARRAY[v_entry_1, v_entry_2], v_event) r;
            RETURN;
        END IF;
        UPDATE accounts SET balance = balance + p_amount
         WHERE id = p_credit AND slot = mod(v_hash, slots) AND tenant_id = p_tenant AND currency = p_currency;
        IF NOT FOUND THEN
            -- 6. undo the debit (same transaction: the row is still locked by us)
            UPDATE accounts SET balance = balance + p_amount WHERE id = p_debit AND slot = v_paid;
            SELECT r.status_code, r.body INTO status_code, body
              FROM peer_reject(p_tenant, p_key, p_debit, p_credit, p_currency, p_amount_text, ARRAY[v_entry_1, v_entry_2], v_event) r;
            RETURN;
        END IF;
    ELSE
        UPDATE accounts SET balance = balance + p_amount
         WHERE id = p_credit AND slot = mod(v_hash, slots) AND tenant_id = p_tenant AND currency = p_currency;
        IF NOT FOUND THEN
            SELECT r.status_code, r.body INTO status_code, body
              FROM peer_reject(p_tenant, p_key, p_debit, p_credit, p_currency, p_amount_text, ARRAY[v_entry_1, v_entry_2], v_event) r;
            RETURN;
        END IF;
        UPDATE accounts SET balance = balance - p_amount
         WHERE id = p_debit AND slot = mod(v_hash, slots) AND tenant_id = p_tenant AND currency = p_currency
           AND (balance >= p_amount OR NOT constrained)
        RETURNING slot INTO v_paid;
        v_paid := coalesce(v_paid, peer_debit_other_slots(p_tenant, p_debit, p_currency, p_amount, v_hash));
        IF v_paid IS NULL THEN
            -- 6. undo the credit
            UPDATE accounts SET balance = balance - p_amount WHERE id = p_credit AND slot = mod(v_hash, slots);
            SELECT r.status_code, r.body INTO status_code, body
              FROM peer_reject(p_tenant, p_key, p_debit, p_credit, p_currency, p_amount_text, ARRAY[v_entry_1, v_entry_2], v_event) r;
            RETURN;
        END IF;
    END IF;
    status_code := 201;
    body := p_ok_body;
END
$fn$;

-- Account creation: claim the key, insert the account's slot rows (ids are unique across tenants, as in Tally).
CREATE OR REPLACE FUNCTION peer_create_account(
    p_tenant bigint, p_key text, p_fingerprint bytea, p_id bigint, p_currency text, p_constrained boolean, p_slots int,
    p_created_at timestamptz, p_ok_body text,
    OUT status_code int, OUT body text, OUT replayed boolean)
LANGUAGE plpgsql AS $fn$
DECLARE
    v_claimed boolean;
    v_created int;
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
    -- an account's rows are created together, so a taken slot 0 means the whole account exists
    INSERT INTO accounts (id, slot, slots, tenant_id, currency, constrained, balance, created_at)
    SELECT p_id, s, p_slots, p_tenant, p_currency, p_constrained, 0, p_created_at FROM generate_series(0, p_slots - 1) s
    ON CONFLICT (id, slot) DO NOTHING;
    GET DIAGNOSTICS v_created = ROW_COUNT;
    IF v_created = 0 THEN
        status_code := 409;
        body := peer_problem('account-exists', 409, 'Account exists', 'an account with this id already exists', ',"accountId":' || p_id);
        UPDATE idempotency_keys SET response_code = 409, response_body = body WHERE tenant_id = p_tenant AND idem_key = p_key;
        RETURN;
    END IF;
    status_code := 201;
    body := p_ok_body;
END
$fn$;

-- Accounts in a batch (setup): one round trip and ONE transaction, each through the same function as a single request.
CREATE OR REPLACE FUNCTION peer_create_accounts(
    p_tenant bigint, p_keys text[], p_fingerprints_hex text[], p_ids bigint[], p_currencies text[], p_constrained boolean[],
    p_slots int[], p_created_at timestamptz, p_ok_bodies text[])
RETURNS TABLE (status_code int, body text, replayed boolean)
LANGUAGE plpgsql AS $fn$
BEGIN
    FOR i IN 1 .. coalesce(array_length(p_keys, 1), 0) LOOP
        RETURN QUERY SELECT a.status_code, a.body, a.replayed
          FROM peer_create_account(p_tenant, p_keys[i], decode(p_fingerprints_hex[i], 'hex'), p_ids[i], p_currencies[i],
                                   p_constrained[i], p_slots[i], p_created_at, p_ok_bodies[i]) a;
    END LOOP;
END
$fn$;

-- Transfers in a batch (POST /v1/batch, measured and setup): one round trip and ONE transaction, non-atomic (each
-- transfer its own result, as in Tally), the results in request order.
--
--   1. lock every balance row the batch can touch, in (id, slot) order, before anything else: the rows stay locked
--      to the end of the transaction in any case, and one order for every batch means two batches never deadlock.
--   2. set-wise when nothing can be refused: distinct keys, no reference, every account there for the tenant and
--      the currency, and every constrained debit slot holding at least the sum of the batch's debits from it (with
--      its rows locked, no other transaction can change that). Then: claim the keys with one INSERT (a key taken
--      before is answered from its stored response, like a single request), the ledger rows and the outbox rows with
--      one INSERT each, and every balance with one UPDATE of the summed change per (account, slot): the same rows
--      and results as the transfers one by one (source article 000: "batching: operations on one account grouped
--      and applied with a single UPDATE").
--   3. else one by one through peer_transfer, in request order.
CREATE OR REPLACE FUNCTION peer_transfers(
    p_tenant bigint, p_keys text[], p_fingerprints_hex text[], p_transfer_ids text[], p_debits bigint[], p_credits bigint[],
    p_amounts bigint[], p_currencies text[], p_references text[], p_created_at timestamptz, p_ok_bodies text[], p_amount_texts text[])
RETURNS TABLE (status_code int, body text, replayed boolean)
LANGUAGE plpgsql AS $fn$
DECLARE
    v_count     int := coalesce(array_length(p_keys, 1), 0);
    v_set_wise  boolean;
    v_claimed   text[];
    v_all_fresh boolean;
BEGIN
    -- 1. lock in (id, slot) order
    PERFORM 1 FROM accounts WHERE id = ANY (p_debits || p_credits) ORDER BY id, slot FOR UPDATE;

    -- 2. can nothing be refused?
    WITH t AS (
        SELECT u.k, u.d, u.c, u.a, u.cur, u.ref FROM unnest(p_keys, p_debits, p_credits, p_amounts, p_currencies, p_references) AS u(k, d, c, a, cur, ref)),
    debit_slots AS (
        SELECT t.d AS id, mod(peer_key_hash(t.k), a.slots) AS slot, sum(t.a) AS total
          FROM t JOIN accounts a ON a.id = t.d AND a.slot = 0
         GROUP BY 1, 2)
    SELECT (SELECT count(DISTINCT t.k) = v_count AND bool_and(t.ref IS NULL) FROM t)
       AND NOT EXISTS (SELECT 1 FROM t WHERE
               NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = t.d AND a.slot = 0 AND a.tenant_id = p_tenant AND a.currency = t.cur)
            OR NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = t.c AND a.slot = 0 AND a.tenant_id = p_tenant AND a.currency = t.cur))
       AND NOT EXISTS (SELECT 1 FROM debit_slots s JOIN accounts b ON b.id = s.id AND b.slot = s.slot
                        WHERE b.constrained AND b.balance < s.total)
      INTO v_set_wise;

    IF NOT coalesce(v_set_wise, false) THEN
        -- 3. one by one
        FOR i IN 1 .. v_count LOOP
            RETURN QUERY SELECT t.status_code, t.body, t.replayed
              FROM peer_transfer(p_tenant, p_keys[i], decode(p_fingerprints_hex[i], 'hex'), p_transfer_ids[i]::uuid, p_debits[i],
                                 p_credits[i], p_amounts[i], p_currencies[i], p_references[i], p_created_at, p_ok_bodies[i],
                                 p_amount_texts[i]) t;
        END LOOP;
        RETURN;
    END IF;

    -- 2. set-wise: keys, rows, balances
    WITH claimed AS (
        INSERT INTO idempotency_keys (tenant_id, idem_key, operation, fingerprint, status, response_code, response_body, transfer_id, created_at)
        SELECT p_tenant, u.k, 'transfer', decode(u.fp, 'hex'), 'completed', 201, u.body, u.tid::uuid, p_created_at
          FROM unnest(p_keys, p_fingerprints_hex, p_ok_bodies, p_transfer_ids) AS u(k, fp, body, tid)
        ON CONFLICT (tenant_id, idem_key) DO NOTHING
        RETURNING idem_key)
    SELECT coalesce(array_agg(claimed.idem_key), '{}') INTO v_claimed FROM claimed;
    v_all_fresh := cardinality(v_claimed) = v_count;

    INSERT INTO ledger_entries (transfer_id, tenant_id, account_id, amount_minor, currency, reference, created_at)
    SELECT u.tid::uuid, p_tenant, e.account_id, e.amount_minor, u.cur, NULL, p_created_at
      FROM unnest(p_keys, p_transfer_ids, p_debits, p_credits, p_amounts, p_currencies) WITH ORDINALITY AS u(k, tid, d, c, a, cur, i)
      CROSS JOIN LATERAL (VALUES (1, u.d, -u.a), (2, u.c, u.a)) AS e(side, account_id, amount_minor)
     WHERE v_all_fresh OR u.k = ANY (v_claimed)
     ORDER BY u.i, e.side;

    INSERT INTO outbox (aggregate_id, event_type, payload, created_at)
    SELECT u.tid::uuid, 'transfer.posted', u.body::jsonb, p_created_at
      FROM unnest(p_keys, p_transfer_ids, p_ok_bodies) WITH ORDINALITY AS u(k, tid, body, i)
     WHERE v_all_fresh OR u.k = ANY (v_claimed)
     ORDER BY u.i;

    UPDATE accounts a SET balance = a.balance + m.delta
      FROM (SELECT x.id, mod(peer_key_hash(x.k), s.slots) AS slot, sum(x.delta) AS delta
              FROM (SELECT u.k, side.id, side.delta
                      FROM unnest(p_keys, p_debits, p_credits, p_amounts) AS u(k, d, c, a)
                      CROSS JOIN LATERAL (VALUES (u.d, -u.a), (u.c, u.a)) AS side(id, delta)
                     WHERE v_all_fresh OR u.k = ANY (v_claimed)) x
              JOIN accounts s ON s.id = x.id AND s.slot = 0
             GROUP BY 1, 2) m
     WHERE a.id = m.id AND a.slot = m.slot;

    IF v_all_fresh THEN
        RETURN QUERY SELECT 201, u.body, false FROM unnest(p_ok_bodies) WITH ORDINALITY AS u(body, i) ORDER BY u.i;
        RETURN;
    END IF;
    FOR i IN 1 .. v_count LOOP
        IF p_keys[i] = ANY (v_claimed) THEN
            RETURN QUERY SELECT 201, p_ok_bodies[i], false;
        ELSE
            RETURN QUERY SELECT s.status_code, s.body, s.replayed FROM peer_stored(p_tenant, p_keys[i], decode(p_fingerprints_hex[i], 'hex')) s;
        END IF;
    END LOOP;
END
$fn$;
