package dev.tally.persistence;

import dev.tally.persistence.db.Database;
import dev.tally.persistence.db.EmbeddedDatabase;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * One real embedded PostgreSQL per test class (it takes a few seconds to start), with a fresh, migrated
 * database per test so tests never see each other's rows.
 */
public final class PostgresFixture implements AutoCloseable
{
    private final EmbeddedDatabase server;
    private final List<Database> opened = new ArrayList<>();
    private int databases;

    private PostgresFixture(final EmbeddedDatabase server)
    {
        this.server = server;
    }

    /** Starts a server with a clean data directory under target/pg/. */
    public static PostgresFixture start(final Class<?> testClass)
    {
        final Path directory = Paths.get("target", "pg", testClass.getSimpleName()).toAbsolutePath();
        deleteRecursively(directory);
        // fsync off: these databases are thrown away, and CREATE DATABASE checkpoints (fsyncs) every time otherwise.
        return new PostgresFixture(EmbeddedDatabase.start(directory, 0, false));
    }

    public EmbeddedDatabase server()
    {
        return server;
    }

    /** @return a new database on the server, migrated, with its pool. */
    public Database newDatabase()
    {
        final String name = "test_" + (++databases);
        server.ensureDatabase(name);
        final Database database = Database.connect(server.jdbcUrl(name));
        database.migrate();
        opened.add(database);
        return database;
    }

    /**
     * Closes the pools of the databases opened so far (the server keeps running): a class with many tests calls it
     * after each, so that idle pooled connections do not pile up to the server's {@code max_connections}.
     */
    public void closeDatabases()
    {
        opened.forEach(Database::close);
        opened.clear();
    }

    @Override
    public void close()
    {
        opened.forEach(Database::close);
        server.close();
    }

    public static void deleteRecursively(final Path directory)
    {
        if (!Files.exists(directory))
        {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory))
        {
            for (final Path p : (Iterable<Path>)paths.sorted(Comparator.reverseOrder())::iterator)
            {
                Files.delete(p);
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
