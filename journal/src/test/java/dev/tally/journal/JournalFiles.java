package dev.tally.journal;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.wire.DocumentContext;

/** Damages journal files on disk the way crashes and failing disks do. */
final class JournalFiles
{
    /** Queue data sits near the start of a cycle file: header, index, then documents. */
    private static final int SEARCH_LENGTH_MAX_BYTES = 16 << 20;
    /** Chronicle's document header: a 32-bit length with the ready and metadata bits. */
    static final int CHRONICLE_HEADER_BYTES = 4;

    private JournalFiles()
    {
    }

    /** Flips every bit of the first byte of the last occurrence of {@code text} in the cycle files. */
    static void corruptLastOccurrence(final Path directory, final String text) throws IOException
    {
        final byte[] pattern = text.getBytes(StandardCharsets.US_ASCII);
        for (final Path file : cycleFiles(directory))
        {
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
            {
                final int length = (int)Math.min(channel.size(), SEARCH_LENGTH_MAX_BYTES);
                final ByteBuffer bytes = ByteBuffer.allocate(length);
                channel.read(bytes, 0);
                final int at = lastIndexOf(bytes.array(), length, pattern);
                if (at >= 0)
                {
                    channel.write(ByteBuffer.wrap(new byte[]{(byte)~pattern[0]}), at);
                    channel.force(true);
                    return;
                }
            }
        }
        throw new AssertionError("'" + text + "' not found in " + directory);
    }

    /**
     * Zeroes the bytes from the last occurrence of {@code from} to {@code bytesAfterTo} bytes past the end of the last
     * occurrence of {@code to}, as a power loss leaves the pages of a document that never reached the disk.
     */
    static void zeroFromTo(final Path directory, final String from, final String to, final int bytesAfterTo) throws IOException
    {
        final byte[] fromPattern = from.getBytes(StandardCharsets.US_ASCII);
        final byte[] toPattern = to.getBytes(StandardCharsets.US_ASCII);
        for (final Path file : cycleFiles(directory))
        {
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
            {
                final int length = (int)Math.min(channel.size(), SEARCH_LENGTH_MAX_BYTES);
                final ByteBuffer bytes = ByteBuffer.allocate(length);
                channel.read(bytes, 0);
                final int start = lastIndexOf(bytes.array(), length, fromPattern);
                final int end = lastIndexOf(bytes.array(), length, toPattern) + toPattern.length + bytesAfterTo;
                if (start >= 0 && end > start)
                {
                    channel.write(ByteBuffer.allocate(end - start), start);
                    channel.force(true);
                    return;
                }
            }
        }
        throw new AssertionError("'" + from + "' .. '" + to + "' not found in " + directory);
    }

    /** Appends one document holding {@code length} raw bytes, as a foreign or broken writer would. */
    static void appendRawDocument(final Path directory, final byte[] bytes, final int length)
    {
        try (SingleChronicleQueue queue = JournalQueues.openForAppend(JournalConfig.of(directory, Durability.ASYNC));
            ExcerptAppender appender = queue.createAppender())
        {
            try (DocumentContext dc = appender.writingDocument())
            {
                dc.wire().bytes().write(bytes, 0, length);
            }
        }
    }

    /** @return the file position of every data document's 4-byte Chronicle header in {@code directory}'s first cycle file. */
    static long[] documentHeaderPositions(final Path directory)
    {
        final List<Long> positions = new java.util.ArrayList<>();
        try (SingleChronicleQueue queue = JournalQueues.openReadOnly(directory);
            net.openhft.chronicle.queue.ExcerptTailer tailer = queue.createTailer())
        {
            while (true)
            {
                try (DocumentContext dc = tailer.readingDocument())
                {
                    if (!dc.isPresent())
                    {
                        break;
                    }
                    positions.add(dc.wire().bytes().readPosition() - CHRONICLE_HEADER_BYTES);
                }
            }
        }
        return positions.stream().mapToLong(Long::longValue).toArray();
    }

    /** @return the length of the document whose Chronicle header is at {@code headerPosition} of {@code file}. */
    static int documentLength(final Path file, final long headerPosition) throws IOException
    {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ))
        {
            final ByteBuffer header = ByteBuffer.allocate(CHRONICLE_HEADER_BYTES).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            channel.read(header, headerPosition);
            return header.getInt(0) & net.openhft.chronicle.wire.Wires.LENGTH_MASK;
        }
    }

    /** Writes {@code length} zeros at {@code position} of {@code file}, as a failing disk or a lost page leaves them. */
    static void zero(final Path file, final long position, final int length) throws IOException
    {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE))
        {
            channel.write(ByteBuffer.allocate(length), position);
            channel.force(true);
        }
    }

    /** @return the first {@code length} bytes of {@code file}. */
    static byte[] read(final Path file, final int length) throws IOException
    {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ))
        {
            final ByteBuffer bytes = ByteBuffer.allocate(length);
            channel.read(bytes, 0);
            return bytes.array();
        }
    }

    /** Writes {@code bytes} at the start of {@code file}. */
    static void writeAtStart(final Path file, final byte[] bytes) throws IOException
    {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE))
        {
            channel.write(ByteBuffer.wrap(bytes), 0);
            channel.force(true);
        }
    }

    static List<Path> cycleFiles(final Path directory) throws IOException
    {
        try (Stream<Path> files = Files.list(directory))
        {
            final List<Path> cycleFiles = files
                .filter(path -> path.getFileName().toString().endsWith(".cq4"))
                .sorted()
                .collect(Collectors.toList());
            assertTrue(!cycleFiles.isEmpty(), "no cycle file in " + directory);
            return cycleFiles;
        }
    }

    private static int lastIndexOf(final byte[] haystack, final int length, final byte[] needle)
    {
        for (int i = length - needle.length; i >= 0; i--)
        {
            int j = 0;
            while (j < needle.length && haystack[i + j] == needle[j])
            {
                j++;
            }
            if (j == needle.length)
            {
                return i;
            }
        }
        return -1;
    }
}
