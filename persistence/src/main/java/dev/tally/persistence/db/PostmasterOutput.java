package dev.tally.persistence.db;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The output of a {@code pg_ctl start} and of the postmaster it launches (which inherits the pipe): each line goes to
 * the log at INFO, as zonky does for the first start, and the last {@value #LINES_KEPT} are kept to explain a start that
 * failed. One daemon thread per start, blocked on the pipe, ending when the postmaster and its children have all closed it.
 */
final class PostmasterOutput implements Runnable
{
    /** Lines kept for a failure's message: a failed start writes a handful (its FATAL, a HINT, pg_ctl's verdict). */
    static final int LINES_KEPT = 32;
    private static final Logger LOG = LoggerFactory.getLogger(PostmasterOutput.class);

    private final InputStream output;
    private final ArrayDeque<String> lastLines = new ArrayDeque<>(LINES_KEPT);
    private final CountDownLatch ended = new CountDownLatch(1);

    private PostmasterOutput(final InputStream output)
    {
        this.output = output;
    }

    /** Starts reading {@code process}'s standard output (with its standard error redirected into it). */
    static PostmasterOutput follow(final Process process)
    {
        final PostmasterOutput reader = new PostmasterOutput(process.getInputStream());
        final Thread thread = new Thread(reader, "tally-pg-output-" + process.pid());
        thread.setDaemon(true);
        thread.start();
        return reader;
    }

    @Override
    public void run()
    {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(output, StandardCharsets.UTF_8)))
        {
            for (String line = reader.readLine(); line != null; line = reader.readLine())
            {
                LOG.info("{}", line);
                synchronized (lastLines)
                {
                    if (lastLines.size() == LINES_KEPT)
                    {
                        lastLines.removeFirst();
                    }
                    lastLines.addLast(line);
                }
            }
        }
        catch (final IOException ex)
        {
            LOG.debug("PostgreSQL output closed: {}", ex.toString());
        }
        finally
        {
            ended.countDown();
        }
    }

    /**
     * Waits up to {@code timeoutMs} for the end of the output (every process holding the pipe has exited), so that the
     * lines of a failed start are all read. @return true when it ended.
     */
    boolean awaitEnd(final long timeoutMs) throws InterruptedException
    {
        return ended.await(timeoutMs, TimeUnit.MILLISECONDS);
    }

    /** @return the last lines read, oldest first, joined by newlines. */
    String lastLines()
    {
        synchronized (lastLines)
        {
            return String.join("\n", lastLines);
        }
    }
}
