package dev.tally.gateway.api;

import dev.tally.gateway.api.routing.Route;

import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.id.Uuid7;

import static dev.tally.gateway.api.BodyField.ACCOUNT_ID;
import static dev.tally.gateway.api.BodyField.AMOUNT;
import static dev.tally.gateway.api.BodyField.CREDITS;
import static dev.tally.gateway.api.BodyField.CREDIT_ACCOUNT_ID;
import static dev.tally.gateway.api.BodyField.CURRENCY;
import static dev.tally.gateway.api.BodyField.DEBITS_MUST_NOT_EXCEED_CREDITS;
import static dev.tally.gateway.api.BodyField.DEBIT_ACCOUNT_ID;
import static dev.tally.gateway.api.BodyField.EXPIRES_IN_MS;
import static dev.tally.gateway.api.BodyField.ID;
import static dev.tally.gateway.api.BodyField.LOW_BALANCE_ALERT;
import static dev.tally.gateway.api.BodyField.METADATA;
import static dev.tally.gateway.api.BodyField.OVERDRAFT_LIMIT;
import static dev.tally.gateway.api.BodyField.REFERENCE;
import static dev.tally.gateway.api.BodyField.SUB_BALANCES;
import static dev.tally.gateway.api.BodyField.THRESHOLD;
import static dev.tally.gateway.api.BodyField.mask;

/**
 * The mutating operations of the API, as named on the wire ({@code "op"} of a batch operation) and in
 * the request fingerprint, with the body fields each allows and requires and the path id it targets.
 *
 * <p>The {@link #wireName()} is hashed into every fingerprint the ledger stores: never rename one.
 */
enum Operation
{
    ACCOUNT("account", CommandType.CREATE_ACCOUNT, true,
        mask(ID, CURRENCY, SUB_BALANCES, DEBITS_MUST_NOT_EXCEED_CREDITS, OVERDRAFT_LIMIT, METADATA, LOW_BALANCE_ALERT), mask(ID, CURRENCY),
        -1, null),
    TRANSFER("transfer", CommandType.TRANSFER, true,
        mask(DEBIT_ACCOUNT_ID, CREDIT_ACCOUNT_ID, AMOUNT, CURRENCY, REFERENCE, METADATA), mask(DEBIT_ACCOUNT_ID, CREDIT_ACCOUNT_ID, AMOUNT, CURRENCY),
        -1, null),
    REVERSAL("reversal", CommandType.REVERSE_TRANSFER, false,
        mask(AMOUNT, CURRENCY), 0, Uuid7.KIND_TRANSFER, "transferId"),
    HOLD("hold", CommandType.CREATE_HOLD, true,
        mask(ACCOUNT_ID, AMOUNT, CURRENCY, EXPIRES_IN_MS), mask(ACCOUNT_ID, AMOUNT, CURRENCY, EXPIRES_IN_MS), -1, null),
    CAPTURE("capture", CommandType.CAPTURE_HOLD, true,
        mask(CREDIT_ACCOUNT_ID, AMOUNT, CURRENCY), mask(CREDIT_ACCOUNT_ID), Uuid7.KIND_HOLD, "holdId"),
    VOID("void", CommandType.VOID_HOLD, false, 0, 0, Uuid7.KIND_HOLD, "holdId"),
    /**
     * The account lifecycle. The account is the path's id on the single routes and {@code accountId} of the body in a
     * batch ({@link #accountInPath()}); a freeze's optional {@code credits} picks {@code FREEZE_ACCOUNT_ALL}.
     */
    FREEZE("freeze", CommandType.FREEZE_ACCOUNT, false, mask(ACCOUNT_ID, CREDITS), mask(ACCOUNT_ID), -1, null),
    UNFREEZE("unfreeze", CommandType.UNFREEZE_ACCOUNT, false, mask(ACCOUNT_ID), mask(ACCOUNT_ID), -1, null),
    CLOSE("close", CommandType.CLOSE_ACCOUNT, false, mask(ACCOUNT_ID), mask(ACCOUNT_ID), -1, null),
    /**
     * An account's low-balance threshold: set or changed ({@code PUT}, an optional {@code currency} as a capture's), or
     * removed ({@code DELETE}, no body). One command type for both; the removal journals threshold 0.
     */
    SET_LOW_BALANCE_ALERT("setLowBalanceAlert", CommandType.SET_LOW_BALANCE_ALERT, true, mask(ACCOUNT_ID, THRESHOLD, CURRENCY),
        mask(ACCOUNT_ID, THRESHOLD), -1, null),
    REMOVE_LOW_BALANCE_ALERT("removeLowBalanceAlert", CommandType.SET_LOW_BALANCE_ALERT, false, mask(ACCOUNT_ID), mask(ACCOUNT_ID),
        -1, null),
    /** Replaces an account's metadata ({@code {}} removes it); the account is in the path, or {@code accountId} in a batch. */
    ACCOUNT_METADATA("metadata", CommandType.UPDATE_ACCOUNT_METADATA, true, mask(ACCOUNT_ID, METADATA), mask(ACCOUNT_ID, METADATA), -1, null);

    private static final Operation[] VALUES = values();
    /** For problem details: every wire name, in order. */
    static final String WIRE_NAMES = wireNames();

    private final String wireName;
    private final byte[] wireNameBytes;
    private final CommandType commandType;
    private final boolean bodyRequired;
    private final int allowedFields;
    private final int requiredFields;
    private final int targetKind;
    private final String targetField;

    Operation(
        final String wireName, final CommandType commandType, final boolean bodyRequired, final int allowedFields,
        final int requiredFields, final int targetKind, final String targetField)
    {
        this.wireName = wireName;
        this.wireNameBytes = wireName.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        this.commandType = commandType;
        this.bodyRequired = bodyRequired;
        this.allowedFields = allowedFields;
        this.requiredFields = requiredFields;
        this.targetKind = targetKind;
        this.targetField = targetField;
    }

    String wireName()
    {
        return wireName;
    }

    byte[] wireNameBytes()
    {
        return wireNameBytes;
    }

    CommandType commandType()
    {
        return commandType;
    }

    /** @return false when an empty body (or none, in a batch) means "all defaults" (reversal, void). */
    boolean bodyRequired()
    {
        return bodyRequired;
    }

    int allowedFields()
    {
        return allowedFields;
    }

    int requiredFields()
    {
        return requiredFields;
    }

    /** @return true when the operation names an existing transfer or hold (path id, or batch field). */
    boolean hasTarget()
    {
        return targetField != null;
    }

    /** @return true when a single request names the account in its path ({@code /v1/accounts/{id}/freeze}, {@code .../metadata}). */
    boolean accountInPath()
    {
        return this == FREEZE || this == UNFREEZE || this == CLOSE || this == ACCOUNT_METADATA || this == SET_LOW_BALANCE_ALERT ||
            this == REMOVE_LOW_BALANCE_ALERT;
    }

    /** @return the {@link Uuid7} kind of the target id. */
    int targetKind()
    {
        return targetKind;
    }

    /** @return the batch field that carries the target id ({@code transferId} or {@code holdId}). */
    String targetField()
    {
        return targetField;
    }

    /** @return the operation a single-command route performs, or {@code null} for any other route. */
    static Operation of(final Route route)
    {
        switch (route)
        {
            case CREATE_ACCOUNT: return ACCOUNT;
            case CREATE_TRANSFER: return TRANSFER;
            case REVERSE_TRANSFER: return REVERSAL;
            case CREATE_HOLD: return HOLD;
            case CAPTURE_HOLD: return CAPTURE;
            case VOID_HOLD: return VOID;
            case FREEZE_ACCOUNT: return FREEZE;
            case UNFREEZE_ACCOUNT: return UNFREEZE;
            case CLOSE_ACCOUNT: return CLOSE;
            case UPDATE_ACCOUNT_METADATA: return ACCOUNT_METADATA;
            case SET_LOW_BALANCE_ALERT: return SET_LOW_BALANCE_ALERT;
            case REMOVE_LOW_BALANCE_ALERT: return REMOVE_LOW_BALANCE_ALERT;
            default: return null;
        }
    }

    private static String wireNames()
    {
        final StringBuilder names = new StringBuilder();
        for (final Operation operation : VALUES)
        {
            names.append(names.length() == 0 ? "" : ", ").append(operation.wireName);
        }
        return names.toString();
    }

    /** @return the operation with this wire name, or {@code null}. */
    static Operation ofWireName(final CharSequence name)
    {
        for (final Operation operation : VALUES)
        {
            if (operation.wireName.contentEquals(name))
            {
                return operation;
            }
        }
        return null;
    }
}
