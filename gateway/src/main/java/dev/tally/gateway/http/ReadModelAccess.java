package dev.tally.gateway.http;

import dev.tally.persistence.read.AccountAtRow;
import dev.tally.persistence.read.AccountRow;
import dev.tally.persistence.read.AccountTransferRow;
import dev.tally.persistence.read.AccountTransfersFilter;
import dev.tally.persistence.read.AccountsFilter;
import dev.tally.persistence.read.EntryRow;
import dev.tally.persistence.read.HoldRow;
import dev.tally.persistence.read.LedgerReads;
import java.time.Instant;
import dev.tally.persistence.read.TransferRow;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * What the HTTP front door needs of the PostgreSQL read model: whether writes may be taken, and the history memory no
 * longer holds. The application's read model implements it; every read blocks and runs on the read pool
 * ({@link ReadModelQueries}), never on an I/O thread or a pipeline stage.
 */
public interface ReadModelAccess
{
    /** @return why the read model cannot take writes now (its database dead, its writer stopped), or null when it can. */
    String downReason();

    /** @return true when the writer lags past its bound: new writes get 503 until it catches up. */
    boolean overLagBound();

    /** @return the last journal index whose effects PostgreSQL holds. */
    long watermark();

    /** @return a page of an account's entries after {@code after} (null: from the first), oldest first. */
    List<EntryRow> entries(long tenantId, long accountId, UUID after, int limit) throws Exception;

    /** @return a transfer of the tenant, if PostgreSQL holds it. */
    Optional<TransferRow> transfer(long tenantId, UUID id) throws Exception;

    /** @return the tenant's transfer holding {@code reference}, if PostgreSQL holds it. */
    Optional<TransferRow> transferByReference(long tenantId, String reference) throws Exception;

    /** @return a hold of the tenant, in whatever state, if PostgreSQL holds it. */
    Optional<HoldRow> hold(long tenantId, UUID id) throws Exception;

    /** @return the tenant's account's metadata as PostgreSQL's jsonb text; empty when it has none, or there is no such account. */
    Optional<String> accountMetadata(long tenantId, long accountId) throws Exception;

    /** @return a page of the tenant's accounts, in id order. */
    List<AccountRow> accounts(long tenantId, AccountsFilter filter) throws Exception;

    /** @return a page of the transfers that moved the tenant's account, oldest first. */
    List<AccountTransferRow> accountTransfers(long tenantId, long accountId, AccountTransfersFilter filter) throws Exception;

    /**
     * @return the tenant's account as it stood at {@code at} (an instant), or, when {@code at} is null, right after journal
     * index {@code atIndex}; empty when the tenant has no such account.
     */
    Optional<AccountAtRow> accountAt(long tenantId, long accountId, Instant at, long atIndex) throws Exception;

    /** @return a cursor over the account's entries journaled after {@code from}, up to and including {@code to}. */
    LedgerReads.StatementCursor statement(long tenantId, long accountId, Instant from, Instant to) throws Exception;

    /** @return the minor digits of the account's currency, or -1 when PostgreSQL holds no such account of the tenant. */
    int accountMinorDigits(long tenantId, long accountId) throws Exception;
}
