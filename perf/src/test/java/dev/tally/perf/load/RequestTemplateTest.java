package dev.tally.perf.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RequestTemplateTest
{
    private final RequestTemplate template = new RequestTemplate("127.0.0.1:8080", "secret-key", "Lx-", "1.00", "TRY", false, false);

    @Test
    void shouldRenderASingleTransferWithAnExactContentLength() throws IOException
    {
        final ByteBuf out = Unpooled.buffer();
        template.writeTransfer(out, 1234, 9_000_000_001L, 42);
        final String request = out.toString(StandardCharsets.US_ASCII);

        assertTrue(request.startsWith("POST /v1/transfers HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAuthorization: Bearer secret-key\r\n"), request);
        assertTrue(request.contains("\r\nIdempotency-Key: Lx-1234\r\n"), request);
        final String body = body(request);
        assertEquals("{\"debitAccountId\":9000000001,\"creditAccountId\":42,\"amount\":\"1.00\",\"currency\":\"TRY\"}", body);
        assertEquals(template.singleLengthMax() >= request.length(), true);
        parses(body);
    }

    @Test
    void shouldRenderABatchWithOneKeyPerOperation() throws IOException
    {
        template.startBatch();
        template.addBatchTransfer(7, 0, 1, 2);
        template.addBatchTransfer(7, 1, 3, 4);
        final ByteBuf out = Unpooled.buffer();
        template.finishBatch(out);
        final String request = out.toString(StandardCharsets.US_ASCII);

        assertTrue(request.startsWith("POST /v1/batch HTTP/1.1\r\n"), request);
        final String body = body(request);
        assertEquals("{\"atomic\":false,\"operations\":[" +
            "{\"op\":\"transfer\",\"idempotencyKey\":\"Lx-7.0\",\"body\":{\"debitAccountId\":1,\"creditAccountId\":2,\"amount\":\"1.00\",\"currency\":\"TRY\"}}," +
            "{\"op\":\"transfer\",\"idempotencyKey\":\"Lx-7.1\",\"body\":{\"debitAccountId\":3,\"creditAccountId\":4,\"amount\":\"1.00\",\"currency\":\"TRY\"}}]}",
            body);
        assertTrue(template.batchLengthMax(2) >= request.length());
        parses(body);
    }

    @Test
    void shouldGiveEveryTransferAReferenceMadeOfItsKeyWhenAsked() throws IOException
    {
        final RequestTemplate referenced = new RequestTemplate("127.0.0.1:8080", "secret-key", "Lx-", "1.00", "TRY", true, false);
        assertEquals("{\"debitAccountId\":5,\"creditAccountId\":6,\"reference\":\"Lx-1234\",\"amount\":\"1.00\",\"currency\":\"TRY\"}",
            singleTransferBody(referenced));

        final String batchRequest = twoOperationBatch(referenced);
        assertTrue(body(batchRequest).contains("\"reference\":\"Lx-" + Long.MAX_VALUE + ".8189\","), batchRequest);
    }

    @Test
    void shouldGiveEveryTransferTheSameMetadataWhenAsked() throws IOException
    {
        final RequestTemplate labelled = new RequestTemplate("127.0.0.1:8080", "secret-key", "Lx-", "1.00", "TRY", true, true);
        assertEquals("{\"debitAccountId\":5,\"creditAccountId\":6,\"reference\":\"Lx-1234\",\"metadata\":" + RequestTemplate.METADATA +
            ",\"amount\":\"1.00\",\"currency\":\"TRY\"}", singleTransferBody(labelled));

        assertTrue(body(twoOperationBatch(labelled)).contains("\"metadata\":" + RequestTemplate.METADATA + ","));
    }

    /** @return the body of the single transfer of key 1234 from account 5 to 6, its request checked to fit. */
    private static String singleTransferBody(final RequestTemplate template)
    {
        final ByteBuf single = Unpooled.buffer();
        template.writeTransfer(single, 1234, 5, 6);
        final String request = single.toString(StandardCharsets.US_ASCII);
        assertTrue(template.singleLengthMax() >= request.length());
        return body(request);
    }

    /** @return a batch of the smallest and the largest key and operation number, checked to fit and to parse. */
    private static String twoOperationBatch(final RequestTemplate template) throws IOException
    {
        template.startBatch();
        template.addBatchTransfer(7, 0, 1, 2);
        template.addBatchTransfer(Long.MAX_VALUE, 8_189, 1, 2);
        final ByteBuf batch = Unpooled.buffer();
        template.finishBatch(batch);
        final String batchRequest = batch.toString(StandardCharsets.US_ASCII);
        assertTrue(template.batchLengthMax(2) >= batchRequest.length());
        parses(body(batchRequest));
        return batchRequest;
    }

    /** @return the body, after checking that Content-Length counts exactly its bytes. */
    private static String body(final String request)
    {
        final int headEnd = request.indexOf("\r\n\r\n");
        final int lengthAt = request.indexOf("Content-Length: ") + "Content-Length: ".length();
        final int declared = Integer.parseInt(request.substring(lengthAt, request.indexOf("\r\n", lengthAt)));
        final String body = request.substring(headEnd + 4);
        assertEquals(declared, body.length());
        return body;
    }

    private static void parses(final String json) throws IOException
    {
        try (JsonParser parser = new JsonFactory().createParser(json))
        {
            while (parser.nextToken() != null)
            {
                // reaching the end without an exception is the assertion
            }
        }
    }
}
