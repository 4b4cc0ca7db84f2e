package dev.tally.server.config;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import org.slf4j.LoggerFactory;

/**
 * How the server's log lines look on stderr: {@link #TEXT} for people (logback.xml's pattern), or
 * {@link #JSON}, one object per line for a log shipper, written by Logback's own {@link JsonEncoder}.
 *
 * <p>Chosen after the command line is parsed ({@code --log-format}, {@code TALLY_LOG_FORMAT} or the
 * config file), so the root logger's appenders are swapped here rather than in logback.xml, which is
 * read when the first logger is created, before any setting is known.
 */
public enum LogFormat
{
    /** The pattern of logback.xml: time, level, thread, logger, message. */
    TEXT,
    /** One JSON object per line: timestamp, level, thread, logger, formatted message, MDC, key-value pairs, throwable. */
    JSON;

    static final String APPENDER_NAME = "STDERR";

    /** Makes this the format of every line from now on. Text leaves logback.xml's configuration alone. */
    public void apply()
    {
        if (this == TEXT || !(LoggerFactory.getILoggerFactory() instanceof LoggerContext))
        {
            return;
        }
        final LoggerContext context = (LoggerContext)LoggerFactory.getILoggerFactory();
        final JsonEncoder encoder = new JsonEncoder();
        encoder.setContext(context);
        // the formatted message is what a reader wants; the raw template and arguments would say it twice
        encoder.setWithFormattedMessage(true);
        encoder.setWithMessage(false);
        encoder.setWithArguments(false);
        encoder.setWithContext(false);
        encoder.setWithSequenceNumber(false);
        encoder.setWithNanoseconds(false);
        encoder.start();
        final ConsoleAppender<ILoggingEvent> appender = new ConsoleAppender<>();
        appender.setContext(context);
        appender.setName(APPENDER_NAME);
        appender.setTarget("System.err");
        appender.setEncoder(encoder);
        appender.start();
        final Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.detachAndStopAllAppenders();
        root.addAppender(appender);
    }
}
