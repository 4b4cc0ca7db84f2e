package dev.tally.persistence.outbox;

import java.util.UUID;

/**
 * One claimed outbox row, as the relay delivers it.
 *
 * @param id            the event id (also in the payload as {@code eventId}): the consumer's idempotency key.
 * @param tenantId      whose event it is.
 * @param aggregateType {@code account}, {@code transfer} or {@code hold}.
 * @param aggregateId   the aggregate's id (an account id is unique only within its tenant); events of one aggregate,
 *                      i.e. one (tenant, type, id), are delivered in id order.
 * @param eventType     e.g. {@code TransferPosted}.
 * @param payload       the JSON body, exactly as sent (PostgreSQL's jsonb text form).
 * @param attempt       which attempt this claim is, from 1 (the row's {@code attempts} after the claim); also the
 *                      claim's token: its round records an outcome only while the row's {@code attempts} still equals it.
 */
public record OutboxEvent(UUID id, long tenantId, String aggregateType, String aggregateId, String eventType, String payload,
                          int attempt)
{
}
