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
    void shouldSkipTheSubBalanceEntriesOfAnAccountBody()
    {
        final String detail = "\"subBalanceDetail\":[{\"index\":0,\"posted\":\"0.00\"},{\"index\":1,\"posted\":\"0.00\"}]";
        final byte[] body = ("{\"atomic\":false,\"results\":[" +
            "{\"index\":0,\"status\":201,\"body\":{\"id\":1," + detail + "}}," +
            "{\"index\":1,\"status\":409,\"body\":{\"type\":\"https://tally.dev/problems/account-exists\"}}]}").getBytes(StandardCharsets.US_ASCII);
        final BatchResults results = new BatchResults(4);

        assertEquals(2, results.scan(body, body.length));
        assertEquals(201, results.status(0));
        assertEquals(409, results.status(1));
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

    @Test
    void shouldFindTheResultMarkerWhereverItSitsAmongBytesThatLookLikeIt()
    {
        final byte[] marker = "{\"index\":".getBytes(StandardCharsets.US_ASCII);
        final byte[] lookalikes = "xx{\"indexx\":{\"inde\"x{\"index\"".getBytes(StandardCharsets.US_ASCII);
        final java.util.Random random = new java.util.Random(42);
        for (int round = 0; round < 2_000; round++)
        {
            final byte[] body = new byte[random.nextInt(80)];
            for (int i = 0; i < body.length; i++)
            {
                body[i] = random.nextInt(4) == 0 ? lookalikes[random.nextInt(lookalikes.length)] : (byte)('a' + random.nextInt(26));
            }
            if (random.nextBoolean() && body.length >= marker.length)
            {
                System.arraycopy(marker, 0, body, random.nextInt(body.length - marker.length + 1), marker.length);
            }
            final int length = random.nextInt(body.length + 1);
            final int from = random.nextInt(length + 1);
            assertEquals(naiveFind(body, from, length, marker), BatchResults.findResult(body, from, length),
                () -> "from " + from + " length " + length + " in " + new String(body, StandardCharsets.US_ASCII));
        }
    }

    private static int naiveFind(final byte[] body, final int from, final int length, final byte[] needle)
    {
        outer:
        for (int i = from; i + needle.length <= length; i++)
        {
            for (int j = 0; j < needle.length; j++)
            {
                if (body[i + j] != needle[j])
                {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
