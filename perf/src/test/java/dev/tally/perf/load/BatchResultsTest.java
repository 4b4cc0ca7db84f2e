package dev.tally.perf.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class BatchResultsTest
{
    @Test
    void shouldReadEachOperationsStatusAndReplayFlag()
    {
        final String body = "{\"atomic\":false,\"results\":[" +
            "{\"index\":0,\"status\":201,\"body\":{\"id\":\"01a2-7000\",\"kind\":\"transfer\",\"amount\":\"1.00\"}}," +
            "{\"index\":1,\"status\":201,\"replayed\":true,\"body\":{\"id\":\"01a3-7000\",\"kind\":\"transfer\"}}," +
            "{\"index\":2,\"status\":422,\"body\":{\"type\":\"https://tally.dev/problems/insufficient-funds\",\"status\":422," +
            "\"operationIndex\":2}}]}";
        final BatchResults results = new BatchResults(8);
        final byte[] bytes = body.getBytes(StandardCharsets.US_ASCII);

        assertEquals(3, results.scan(bytes, bytes.length));
        assertEquals(201, results.status(0));
        assertFalse(results.replayed(0));
        assertEquals(201, results.status(1));
        assertTrue(results.replayed(1));
        assertEquals(422, results.status(2));
        assertFalse(results.replayed(2));
    }

    @Test
    void shouldRefuseResultsOutOfOrderOrMoreThanExpected()
    {
        final byte[] outOfOrder = "{\"results\":[{\"index\":1,\"status\":201,\"body\":{}}]}".getBytes(StandardCharsets.US_ASCII);
        final byte[] tooMany = "{\"results\":[{\"index\":0,\"status\":201,\"body\":{}},{\"index\":1,\"status\":201,\"body\":{}}]}"
            .getBytes(StandardCharsets.US_ASCII);

        assertEquals(-1, new BatchResults(4).scan(outOfOrder, outOfOrder.length));
        assertEquals(-1, new BatchResults(1).scan(tooMany, tooMany.length));
    }
}
