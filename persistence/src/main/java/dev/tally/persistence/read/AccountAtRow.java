package dev.tally.persistence.read;

import java.time.Instant;

/**
 * An account as it stood at a past point of the journal (an instant or a journal index), from the read model: its
 * rules, posted (the running balance of its last entry at or before the point), held (its holds live at the point), and
 * how far the read model reaches, which the caller checks the point against.
 *
 * @param currency                    ISO 4217 code.
 * @param subBalances                 how many sub-balances the account has (1 to 64).
 * @param debitsMustNotExceedCredits  whether the account is constrained.
 * @param overdraftLimitMinor         its overdraft limit.
 * @param createdAt                   journaled time of its creation.
 * @param createdIndex                journal index of its creation.
 * @param postedMinor                 posted total at the point (0 before its first entry).
 * @param heldMinor                   held total at the point: the holds created at or before it and not resolved by then.
 * @param lastEntryIndex              journal index of its last entry at or before the point; 0 for none.
 * @param watermarkIndex              the last journal index the read model holds.
 * @param watermarkTime               journaled time of that index; null before the first write.
 */
public record AccountAtRow(
    String currency, int subBalances, boolean debitsMustNotExceedCredits, long overdraftLimitMinor, Instant createdAt, long createdIndex,
    long postedMinor, long heldMinor, long lastEntryIndex, long watermarkIndex, Instant watermarkTime)
{
}
