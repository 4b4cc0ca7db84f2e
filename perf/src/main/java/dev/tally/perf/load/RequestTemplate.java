package dev.tally.perf.load;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;

/**
 * Request bytes built from pre-rendered pieces with the numbers filled in: no JSON library, no string
 * building, no allocation per request (one instance per event-loop thread; it owns a scratch buffer).
 *
 * <pre>
 *   POST /v1/transfers HTTP/1.1            POST /v1/batch HTTP/1.1
 *   Host: 127.0.0.1:PORT                   Host: 127.0.0.1:PORT
 *   Authorization: Bearer KEY              Authorization: Bearer KEY
 *   Content-Type: application/json         Content-Type: application/json
 *   Idempotency-Key: PREFIX{seq}           Content-Length: {n}
 *   Content-Length: {n}
 *                                          {"atomic":false,"operations":[
 *   {"debitAccountId":{d},                   {"op":"transfer","idempotencyKey":"PREFIX{seq}.{op}",
 *    "creditAccountId":{c},                   "body":{...the single body...}}, ...]}
 *    "amount":"1.00","currency":"TRY"}
 * </pre>
 *
 * The body is rendered first into the scratch buffer so that Content-Length is exact.
 */
final class RequestTemplate
{
    private static final byte[] CONTENT_LENGTH = ascii("\r\nContent-Length: ");
    private static final byte[] END_OF_HEAD = ascii("\r\n\r\n");
    private static final byte[] DEBIT = ascii("{\"debitAccountId\":");
    private static final byte[] CREDIT = ascii(",\"creditAccountId\":");
    private static final byte[] BATCH_OPEN = ascii("{\"atomic\":false,\"operations\":[");
    private static final byte[] BATCH_CLOSE = ascii("]}");
    private static final byte[] OP_BODY = ascii("\",\"body\":");
    /** What {@code --metadata} puts on every transfer: members out of order and spaced, so the server canonicalises. */
    static final String METADATA = "{\"orderId\": \"A-1742\", \"customerId\": \"c-90210\", \"channel\": \"web\"}";
    private static final byte[] METADATA_MEMBER = ascii(",\"metadata\":" + METADATA);

    private final byte[] singleHead;
    private final byte[] batchHead;
    private final byte[] amountTail;
    /** {@code ,"reference":"PREFIX} when transfers carry references, else null: the key's sequence completes it. */
    private final byte[] referenceOpen;
    /** {@link #METADATA_MEMBER} when transfers carry metadata, else an empty array. */
    private final byte[] metadataMember;
    private final byte[] opOpen;
    private final ByteBuf body = Unpooled.buffer(64 * 1024);
    private final byte[] digits = new byte[20];

    /**
     * @param hostPort  the Host header value, e.g. {@code 127.0.0.1:8080}.
     * @param apiKey    the bearer key.
     * @param keyPrefix the run-unique prefix of every idempotency key.
     * @param amount    the transfer amount in major units, e.g. {@code 1.00}.
     * @param currency  the currency code.
     * @param references whether each transfer carries the reference {@code PREFIX{keySeq}[.{op}]} (unique per key).
     * @param metadata   whether each transfer carries {@link #METADATA}.
     */
    RequestTemplate(final String hostPort, final String apiKey, final String keyPrefix, final String amount, final String currency,
        final boolean references, final boolean metadata)
    {
        metadataMember = metadata ? METADATA_MEMBER : new byte[0];
        referenceOpen = references ? ascii(",\"reference\":\"" + keyPrefix) : null;
        final String common = "Host: " + hostPort + "\r\nAuthorization: Bearer " + apiKey + "\r\nContent-Type: application/json";
        singleHead = ascii("POST /v1/transfers HTTP/1.1\r\n" + common + "\r\nIdempotency-Key: " + keyPrefix);
        batchHead = ascii("POST /v1/batch HTTP/1.1\r\n" + common);
        amountTail = ascii(",\"amount\":\"" + amount + "\",\"currency\":\"" + currency + "\"}");
        if (referenceOpen != null && keyPrefix.length() + 20 + 1 + 5 > 64)
        {
            throw new IllegalArgumentException("key prefix too long for a reference of at most 64 characters: " + keyPrefix);
        }
        opOpen = ascii("{\"op\":\"transfer\",\"idempotencyKey\":\"" + keyPrefix);
    }

    /** Writes a single {@code POST /v1/transfers} with key {@code PREFIX{keySeq}}. */
    void writeTransfer(final ByteBuf out, final long keySeq, final long debitId, final long creditId)
    {
        body.clear();
        writeTransferBody(body, debitId, creditId, keySeq, -1);
        out.writeBytes(singleHead);
        writeDecimal(out, keySeq);
        out.writeBytes(CONTENT_LENGTH);
        writeDecimal(out, body.readableBytes());
        out.writeBytes(END_OF_HEAD);
        out.writeBytes(body, body.readerIndex(), body.readableBytes());
    }

    /** Starts a batch body: call {@link #addBatchTransfer} for each operation, then {@link #finishBatch}. */
    void startBatch()
    {
        body.clear();
        body.writeBytes(BATCH_OPEN);
    }

    /** Adds operation {@code op} with key {@code PREFIX{keySeq}.{op}}. */
    void addBatchTransfer(final long keySeq, final int op, final long debitId, final long creditId)
    {
        if (op > 0)
        {
            body.writeByte(',');
        }
        body.writeBytes(opOpen);
        writeDecimal(body, keySeq);
        body.writeByte('.');
        writeDecimal(body, op);
        body.writeBytes(OP_BODY);
        writeTransferBody(body, debitId, creditId, keySeq, op);
        body.writeByte('}');
    }

    /** Writes the head and the batch body built since {@link #startBatch}. */
    void finishBatch(final ByteBuf out)
    {
        body.writeBytes(BATCH_CLOSE);
        out.writeBytes(batchHead);
        out.writeBytes(CONTENT_LENGTH);
        writeDecimal(out, body.readableBytes());
        out.writeBytes(END_OF_HEAD);
        out.writeBytes(body, body.readerIndex(), body.readableBytes());
    }

    /** @return an upper bound of the bytes one single transfer request takes. */
    int singleLengthMax()
    {
        return singleHead.length + 20 + CONTENT_LENGTH.length + 10 + END_OF_HEAD.length + DEBIT.length + CREDIT.length + 40 +
            referenceLengthMax() + metadataMember.length + amountTail.length;
    }

    /** @return an upper bound of the bytes one batch request of {@code size} transfers takes. */
    int batchLengthMax(final int size)
    {
        return batchHead.length + CONTENT_LENGTH.length + 10 + END_OF_HEAD.length + BATCH_OPEN.length + BATCH_CLOSE.length +
            size * (opOpen.length + 20 + 1 + 5 + OP_BODY.length + DEBIT.length + CREDIT.length + 40 + referenceLengthMax() +
                metadataMember.length + amountTail.length + 2);
    }

    private int referenceLengthMax()
    {
        return referenceOpen == null ? 0 : referenceOpen.length + 20 + 1 + 5 + 1;
    }

    /** @param op the operation's position in a batch, or -1 for a single transfer. */
    private void writeTransferBody(final ByteBuf out, final long debitId, final long creditId, final long keySeq, final int op)
    {
        out.writeBytes(DEBIT);
        writeDecimal(out, debitId);
        out.writeBytes(CREDIT);
        writeDecimal(out, creditId);
        if (referenceOpen != null)
        {
            out.writeBytes(referenceOpen);
            writeDecimal(out, keySeq);
            if (op >= 0)
            {
                out.writeByte('.');
                writeDecimal(out, op);
            }
            out.writeByte('"');
        }
        out.writeBytes(metadataMember);
        out.writeBytes(amountTail);
    }

    /** Writes a non-negative number in ASCII decimal. */
    private void writeDecimal(final ByteBuf out, final long value)
    {
        if (value < 0)
        {
            throw new IllegalArgumentException("negative: " + value);
        }
        long rest = value;
        int position = digits.length;
        do
        {
            digits[--position] = (byte)('0' + rest % 10);
            rest /= 10;
        }
        while (rest != 0);
        out.writeBytes(digits, position, digits.length - position);
    }

    private static byte[] ascii(final String text)
    {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}
