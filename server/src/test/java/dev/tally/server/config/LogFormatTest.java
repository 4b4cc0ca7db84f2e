package dev.tally.server.config;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.ContextInitializer;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

class LogFormatTest
{
    @AfterEach
    void restoreLogbackXml() throws Exception
    {
        final LoggerContext context = (LoggerContext)LoggerFactory.getILoggerFactory();
        context.reset();
        new ContextInitializer(context).autoConfig();
    }

    @Test
    void shouldWriteOneJsonObjectPerLineWithLevelLoggerAndFormattedMessage() throws Exception
    {
        final PrintStream stderr = System.err;
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try
        {
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            LogFormat.JSON.apply();
            LoggerFactory.getLogger("dev.tally.test").info("replayed {} commands", 42);
            LoggerFactory.getLogger("dev.tally.test").warn("second \"line\"");
        }
        finally
        {
            System.setErr(stderr);
        }
        final String[] lines = captured.toString(StandardCharsets.UTF_8).strip().split("\n");
        assertEquals(2, lines.length, captured::toString);
        final Map<String, String> first = topLevelStrings(lines[0]);
        assertEquals("INFO", first.get("level"));
        assertEquals("dev.tally.test", first.get("loggerName"));
        assertEquals("replayed 42 commands", first.get("formattedMessage"));
        assertFalse(first.containsKey("message"), "the template is not repeated");
        assertEquals("second \"line\"", topLevelStrings(lines[1]).get("formattedMessage"), "escaped as JSON");
    }

    /** Parses one line as a JSON object (failing on anything else) and returns its top-level string members. */
    private static Map<String, String> topLevelStrings(final String line) throws Exception
    {
        final Map<String, String> members = new HashMap<>();
        try (JsonParser parser = new JsonFactory().createParser(line))
        {
            assertEquals(JsonToken.START_OBJECT, parser.nextToken(), line);
            while (parser.nextToken() == JsonToken.FIELD_NAME)
            {
                final String name = parser.currentName();
                final JsonToken value = parser.nextToken();
                if (value == JsonToken.VALUE_STRING)
                {
                    members.put(name, parser.getText());
                }
                else
                {
                    parser.skipChildren();
                }
            }
            assertEquals(null, parser.nextToken(), "one object, nothing after it: " + line);
        }
        return members;
    }
}
