package dev.tally.perf.persistence;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.stream.Stream;

/** The embedded PostgreSQL's data directory of a harness run: {@code target/NAME} of the working directory, emptied first. */
final class HarnessDirectory
{
    private HarnessDirectory()
    {
    }

    /** @return {@code target/name} under the working directory, absolute, as an earlier run left it (or absent). */
    static Path kept(final String name)
    {
        return Paths.get("target", name).toAbsolutePath();
    }

    /** @return {@code target/name} under the working directory, absolute, with nothing left from an earlier run. */
    static Path fresh(final String name)
    {
        final Path directory = kept(name);
        if (!Files.exists(directory))
        {
            return directory;
        }
        try (Stream<Path> paths = Files.walk(directory))
        {
            for (final Path path : paths.sorted(Comparator.reverseOrder()).toList())
            {
                Files.delete(path);
            }
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
        return directory;
    }
}
