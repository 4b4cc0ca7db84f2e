package dev.tally.snapshotter;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Deletes what a test created outside a JUnit {@code @TempDir} (jqwik properties have none). */
final class TestFiles
{
    private TestFiles()
    {
    }

    static void deleteTree(final Path root) throws IOException
    {
        if (!Files.exists(root))
        {
            return;
        }
        try (Stream<Path> paths = Files.walk(root))
        {
            for (final Path p : (Iterable<Path>)paths.sorted(Comparator.reverseOrder())::iterator)
            {
                Files.deleteIfExists(p);
            }
        }
    }
}
