package dev.tally.server.metrics;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A strict reader of the Prometheus text exposition format, version 0.0.4 (what {@code GET /metrics} serves), for
 * tests: it refuses what Prometheus or {@code promtool} would refuse, naming the line. Per family it keeps the
 * {@code # HELP} text, the {@code # TYPE} and the samples; checking what they say (every family has help, counters
 * end in {@code _total}, ...) is the caller's business.
 *
 * <p>Refused: a line that is neither a comment nor a sample; a metric or label name outside Prometheus's alphabet; a
 * label value with an escape other than {@code \\}, {@code \"}, {@code \n}; a label given twice; a value that is not a
 * float ({@code NaN}, {@code +Inf}, {@code -Inf} included) or a timestamp that is not an integer; a TYPE other than
 * counter, gauge, summary, histogram, untyped; a second HELP or TYPE for one family, or one after its first sample; a
 * family whose lines are not together; the same sample (name and labels) twice; a summary sample without
 * {@code quantile} or a histogram bucket without {@code le}; text that does not end in a newline.
 */
public final class PrometheusText
{
    private static final Pattern METRIC_NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
    private static final Pattern FLOAT = Pattern.compile("[+-]?(?:Inf|NaN|(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][+-]?\\d+)?)");
    private static final Pattern TIMESTAMP = Pattern.compile("-?\\d+");
    private static final Set<String> TYPES = Set.of("counter", "gauge", "summary", "histogram", "untyped");

    /** One sample line: its full name (a summary's {@code _sum} included), its labels in order, its value. */
    public record Sample(String name, Map<String, String> labels, double value)
    {
    }

    /** One metric family: its name, HELP text and TYPE (null when the text gave none) and its samples in order. */
    public record Family(String name, String help, String type, List<Sample> samples)
    {
        /** @return true when {@code sampleName} is one of this family's sample names under its type. */
        boolean owns(final String sampleName)
        {
            if (sampleName.equals(name))
            {
                return true;
            }
            if ("summary".equals(type))
            {
                return sampleName.equals(name + "_sum") || sampleName.equals(name + "_count");
            }
            if ("histogram".equals(type))
            {
                return sampleName.equals(name + "_sum") || sampleName.equals(name + "_count") || sampleName.equals(name + "_bucket");
            }
            return false;
        }
    }

    private final Map<String, Family> families = new LinkedHashMap<>();
    private final Set<String> sampleKeys = new HashSet<>();
    private Family current;
    private int lineNumber;

    private PrometheusText()
    {
    }

    /**
     * @return every family of {@code text} by name, in the order they came.
     * @throws IllegalArgumentException naming the first line that breaks the format, and how.
     */
    public static Map<String, Family> parse(final String text)
    {
        if (!text.isEmpty() && !text.endsWith("\n"))
        {
            throw new IllegalArgumentException("the text does not end in a newline");
        }
        final PrometheusText reader = new PrometheusText();
        for (final String line : text.split("\n", -1))
        {
            reader.lineNumber++;
            reader.read(line);
        }
        return reader.families;
    }

    private void read(final String line)
    {
        if (line.isEmpty())
        {
            return;   // the format ignores empty lines
        }
        if (line.startsWith("#"))
        {
            final String[] parts = line.split(" ", 4);
            if (parts.length >= 3 && parts[0].equals("#") && (parts[1].equals("HELP") || parts[1].equals("TYPE")))
            {
                descriptor(parts[1], parts[2], parts.length == 4 ? parts[3] : "");
            }
            return;   // any other comment is ignored
        }
        sample(line);
    }

    private void descriptor(final String kind, final String name, final String text)
    {
        require(METRIC_NAME.matcher(name).matches(), "invalid metric name " + name);
        final Family family = familyFor(name);
        require(family.samples.isEmpty(), kind + " for " + name + " after its first sample");
        if (kind.equals("HELP"))
        {
            require(family.help == null, "a second HELP for " + name);
            replace(new Family(name, unescapeHelp(text), family.type, family.samples));
        }
        else
        {
            require(family.type == null, "a second TYPE for " + name);
            require(TYPES.contains(text), "unknown TYPE " + text + " for " + name);
            replace(new Family(name, family.help, text, family.samples));
        }
    }

    /** @return the family called {@code name}: the current one, or a new one when it was never seen. */
    private Family familyFor(final String name)
    {
        if (current != null && current.name.equals(name))
        {
            return current;
        }
        require(!families.containsKey(name), "the lines of family " + name + " are not together");
        current = new Family(name, null, null, new ArrayList<>());
        families.put(name, current);
        return current;
    }

    private void replace(final Family family)
    {
        families.put(family.name, family);
        current = family;
    }

    private void sample(final String line)
    {
        int at = 0;
        while (at < line.length() && line.charAt(at) != '{' && line.charAt(at) != ' ')
        {
            at++;
        }
        final String name = line.substring(0, at);
        require(METRIC_NAME.matcher(name).matches(), "invalid metric name '" + name + "'");
        final Map<String, String> labels = new LinkedHashMap<>();
        if (at < line.length() && line.charAt(at) == '{')
        {
            at = labels(line, at + 1, labels);
        }
        require(at < line.length() && line.charAt(at) == ' ', "no value after " + name);
        final String[] rest = line.substring(at + 1).split(" ", -1);
        require(rest.length == 1 || rest.length == 2, "expected a value and at most a timestamp: " + line);
        require(FLOAT.matcher(rest[0]).matches(), "invalid value " + rest[0]);
        require(rest.length == 1 || TIMESTAMP.matcher(rest[1]).matches(), "invalid timestamp in " + line);
        final Family family = current != null && current.owns(name) ? current : familyFor(name);
        if ("summary".equals(family.type) && name.equals(family.name))
        {
            require(labels.containsKey("quantile"), "a summary sample without a quantile label: " + line);
        }
        if ("histogram".equals(family.type) && name.equals(family.name + "_bucket"))
        {
            require(labels.containsKey("le"), "a histogram bucket without an le label: " + line);
        }
        require(sampleKeys.add(name + labels), "the same sample twice: " + name + labels);
        family.samples.add(new Sample(name, Map.copyOf(labels), Double.parseDouble(rest[0].replace("Inf", "Infinity"))));
    }

    /** Reads {@code name="value",...}} from {@code at} into {@code labels}; @return the index after the closing brace. */
    private int labels(final String line, final int from, final Map<String, String> labels)
    {
        int at = from;
        while (true)
        {
            require(at < line.length(), "unterminated labels");
            if (line.charAt(at) == '}')
            {
                return at + 1;
            }
            final int equals = line.indexOf('=', at);
            require(equals > at, "a label without a value");
            final String label = line.substring(at, equals);
            require(LABEL_NAME.matcher(label).matches(), "invalid label name '" + label + "'");
            require(equals + 1 < line.length() && line.charAt(equals + 1) == '"', "label " + label + ": the value is not quoted");
            final StringBuilder value = new StringBuilder();
            at = equals + 2;
            while (true)
            {
                require(at < line.length(), "label " + label + ": unterminated value");
                final char c = line.charAt(at++);
                if (c == '"')
                {
                    break;
                }
                if (c == '\\')
                {
                    require(at < line.length(), "label " + label + ": a lone backslash");
                    final char escaped = line.charAt(at++);
                    require(escaped == '\\' || escaped == '"' || escaped == 'n', "label " + label + ": invalid escape \\" + escaped);
                    value.append(escaped == 'n' ? '\n' : escaped);
                }
                else
                {
                    value.append(c);
                }
            }
            require(labels.put(label, value.toString()) == null, "label " + label + " given twice");
            require(at < line.length(), "unterminated labels");
            if (line.charAt(at) == ',')
            {
                at++;
            }
            else
            {
                require(line.charAt(at) == '}', "expected , or } after label " + label);
            }
        }
    }

    private String unescapeHelp(final String text)
    {
        final StringBuilder help = new StringBuilder();
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            if (c == '\\')
            {
                require(i + 1 < text.length(), "HELP ends in a lone backslash");
                final char escaped = text.charAt(++i);
                require(escaped == '\\' || escaped == 'n', "HELP: invalid escape \\" + escaped);
                help.append(escaped == 'n' ? '\n' : escaped);
            }
            else
            {
                help.append(c);
            }
        }
        return help.toString();
    }

    private void require(final boolean condition, final String problem)
    {
        if (!condition)
        {
            throw new IllegalArgumentException("line " + lineNumber + ": " + problem);
        }
    }
}
