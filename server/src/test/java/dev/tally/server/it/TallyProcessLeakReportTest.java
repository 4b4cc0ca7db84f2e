package dev.tally.server.it;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class TallyProcessLeakReportTest
{
    @Test
    void aCleanLogHasNoLeakReport()
    {
        assertNull(TallyProcess.leakReport("INFO tally listening on http://127.0.0.1:4242\nINFO stopped\n"));
    }

    @Test
    void findsNettysReportWithItsRecords()
    {
        final String log = "INFO tally listening on http://127.0.0.1:4242\n" +
            "12:00:01.000 ERROR [tally-io-1] io.netty.util.ResourceLeakDetector - LEAK: ByteBuf.release() was not called " +
            "before it's garbage-collected. See https://netty.io/wiki/reference-counted-objects.html for more information.\n" +
            "Recent access records: \nCreated at:\n\tio.netty.buffer.PooledByteBufAllocator.newDirectBuffer\n";
        final String report = TallyProcess.leakReport(log);
        assertTrue(report.startsWith("LEAK: ByteBuf.release()"), report);
        assertTrue(report.contains("Created at:"), report);
    }
}
