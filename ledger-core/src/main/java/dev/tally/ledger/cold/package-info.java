/**
 * The seam between the ledger and its cold index: what the ledger files after each unit ({@link
 * dev.tally.ledger.cold.ColdSink}). The ledger stays pure: what the cold index says reaches it only through the command,
 * looked up and journaled before the business thread applies it (see docs/ARCHITECTURE.md, "Bounded memory").
 */
package dev.tally.ledger.cold;
