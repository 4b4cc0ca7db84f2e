package dev.tally.gateway;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Finds files of the reactor (docs/...) from wherever Maven or an IDE runs the tests. */
public final class ReactorFiles
{
    private ReactorFiles()
    {
    }

    /** @return {@code relative} resolved against the reactor root, searched from the module directory and its parents. */
    public static Path locate(final String relative)
    {
        final List<Path> starts = new ArrayList<>();
        for (final String property : new String[] {"maven.multiModuleProjectDirectory", "basedir", "user.dir"})
        {
            final String value = System.getProperty(property);
            if (value != null)
            {
                starts.add(Path.of(value).toAbsolutePath());
            }
        }
        for (final Path start : starts)
        {
            for (Path directory = start; directory != null; directory = directory.getParent())
            {
                if (Files.isRegularFile(directory.resolve(relative)))
                {
                    return directory.resolve(relative);
                }
            }
        }
        throw new AssertionError(relative + " not found from " + starts);
    }
}
