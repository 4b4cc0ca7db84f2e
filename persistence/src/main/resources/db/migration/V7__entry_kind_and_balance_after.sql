-- Reading the ledger at a past instant (docs/PERSISTENCE.md, "Read side: history"). Each ledger entry records its
-- transfer's kind and its account's posted total right after it, as the business thread computed it (in journal
-- order, over all the account's sub-balances, exact). Then:
--
--   * the posted balance at an instant or a journal index is the balance_after_minor of the account's last entry at or
--     before it: a backward probe of the unique index (tenant_id, account_id, id) the entries already have (ids order
--     an account's entries in journal order: journaled ms, then journal index, then ordinal), never a sum;
--   * a statement's running balance is the column itself, and its opening balance one more probe.
--
-- Cost to the writer: 10 more bytes per entry row (a bigint and a smallint in the COPY), no new index entry on the
-- entries. kind: 0 transfer, 1 reversal, 2 capture (dev.tally.ledger.transfer.TransferKind).
--
-- Held at an instant comes from the holds (created, resolved): holds_account serves it, one index entry per hold (holds
-- are far rarer than entries, and their rows are updated anyway).

ALTER TABLE ledger_entries
    ADD COLUMN balance_after_minor bigint   NULL,
    ADD COLUMN kind                smallint NULL;

-- Maintenance may now UPDATE an immutable row (it kept the old row before: a BEFORE UPDATE trigger's returned row is
-- what is stored). Only this migration's backfill does.
CREATE OR REPLACE FUNCTION tally_reject_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('tally.maintenance', true) = 'on' THEN
        IF TG_OP = 'UPDATE' THEN
            RETURN NEW;
        END IF;
        RETURN OLD;
    END IF;
    RAISE EXCEPTION '% rows are immutable: % refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'integrity_constraint_violation';
END
$$;

-- Entries written before this migration: their running balance in id (journal) order, and their transfer's kind.
SELECT set_config('tally.maintenance', 'on', true);
UPDATE ledger_entries e
SET balance_after_minor = r.balance_after_minor,
    kind = CASE t.kind WHEN 'transfer' THEN 0 WHEN 'reversal' THEN 1 ELSE 2 END
FROM (SELECT id, tenant_id, account_id,
             sum(amount_minor) OVER (PARTITION BY tenant_id, account_id ORDER BY id) AS balance_after_minor
      FROM ledger_entries) r,
     transfers t
WHERE r.id = e.id AND r.tenant_id = e.tenant_id AND r.account_id = e.account_id AND t.id = e.transfer_id;
SELECT set_config('tally.maintenance', 'off', true);

ALTER TABLE ledger_entries
    ALTER COLUMN balance_after_minor SET NOT NULL,
    ALTER COLUMN kind SET NOT NULL,
    ADD CONSTRAINT ledger_entries_kind CHECK (kind BETWEEN 0 AND 2);

CREATE INDEX holds_account ON holds (tenant_id, account_id, journal_index);

-- The account's last entry at or before journal index p_index: (balance_after_minor, journal_index), or no row. The
-- entries' index is ordered by id, whose leading bits are journaled milliseconds, not by journal index; both orders
-- agree within an account, so a binary search over milliseconds finds the boundary in at most 48 backward probes of
-- that index (each one leaf), then steps back inside the one millisecond that straddles it.
CREATE FUNCTION tally_entry_at_index(p_tenant bigint, p_account bigint, p_index bigint,
                                     OUT balance_after_minor bigint, OUT journal_index bigint)
LANGUAGE plpgsql STABLE AS $$
DECLARE
    v_low   bigint := 0;                      -- the last entry before this millisecond is at or before p_index
    v_high  bigint := 281474976710656;        -- 2^48: past every id; the last entry before it may be after p_index
    v_mid   bigint;
    v_index bigint;
BEGIN
    SELECT e.journal_index INTO v_index FROM ledger_entries e
    WHERE e.tenant_id = p_tenant AND e.account_id = p_account ORDER BY e.id DESC LIMIT 1;
    IF v_index IS NULL THEN
        RETURN;
    END IF;
    IF v_index <= p_index THEN
        SELECT e.balance_after_minor, e.journal_index INTO balance_after_minor, journal_index FROM ledger_entries e
        WHERE e.tenant_id = p_tenant AND e.account_id = p_account ORDER BY e.id DESC LIMIT 1;
        RETURN;
    END IF;
    WHILE v_high - v_low > 1 LOOP
        v_mid := (v_low + v_high) / 2;
        SELECT e.journal_index INTO v_index FROM ledger_entries e
        WHERE e.tenant_id = p_tenant AND e.account_id = p_account
          AND e.id < (lpad(to_hex(v_mid), 12, '0') || '00000000000000000000')::uuid
        ORDER BY e.id DESC LIMIT 1;
        IF v_index IS NULL OR v_index <= p_index THEN
            v_low := v_mid;
        ELSE
            v_high := v_mid;
        END IF;
        v_index := NULL;
    END LOOP;
    SELECT e.balance_after_minor, e.journal_index INTO balance_after_minor, journal_index FROM ledger_entries e
    WHERE e.tenant_id = p_tenant AND e.account_id = p_account
      AND e.id < (lpad(to_hex(v_high), 12, '0') || '00000000000000000000')::uuid AND e.journal_index <= p_index
    ORDER BY e.id DESC LIMIT 1;
END
$$;
