package dev.tally.persistence.db;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Optional;

/**
 * The postmaster of a PostgreSQL data directory as the operating system sees it: the process whose pid is the first line
 * of {@value #PID_FILE}, and whether it still runs.
 *
 * <p>"Runs" means alive and not a zombie. A postmaster killed with SIGKILL is reparented to init once {@code pg_ctl} has
 * exited, and stays a zombie until init reaps it (seconds here; for ever in a container whose first process reaps
 * nothing). A zombie serves nothing, yet it still answers {@code kill(pid, 0)}, which is how PostgreSQL decides that a
 * pid file belongs to a live server: it then refuses to start ("lock file already exists"). The state letter in
 * {@code /proc/<pid>/stat} tells the two apart.
 */
final class Postmaster
{
    /** PostgreSQL's lock file in its data directory: the postmaster's pid on the first line. */
    static final String PID_FILE = "postmaster.pid";
    /** The command line of the last start, which PostgreSQL writes into its data directory: the binary, then its arguments. */
    static final String OPTIONS_FILE = "postmaster.opts";

    private Postmaster()
    {
    }

    /** @return the pid the directory's {@value #PID_FILE} names, or -1 when there is none or it cannot be read. */
    static long pid(final Path dataDirectory)
    {
        try
        {
            final List<String> lines = Files.readAllLines(dataDirectory.resolve(PID_FILE), StandardCharsets.US_ASCII);
            return lines.isEmpty() ? -1 : Long.parseLong(lines.get(0).trim());
        }
        catch (final NoSuchFileException | NumberFormatException ex)
        {
            return -1;   // no server, or a file cut short while being written
        }
        catch (final IOException ex)
        {
            return -1;
        }
    }

    /** @return the process the directory's pid file names, while it runs. */
    static Optional<ProcessHandle> running(final Path dataDirectory)
    {
        final long pid = pid(dataDirectory);
        return pid <= 0 ? Optional.empty() : ProcessHandle.of(pid).filter(Postmaster::isRunning);
    }

    /** @return true when {@code process} runs a {@code postgres} binary (not another program that took a dead server's pid). */
    static boolean isPostgres(final ProcessHandle process)
    {
        return process.info().command().map(c -> c.endsWith("/postgres")).orElse(false);
    }

    /** @return true while {@code process} is alive and not a zombie. */
    static boolean isRunning(final ProcessHandle process)
    {
        return process.isAlive() && !isZombie(process.pid());
    }

    /**
     * Removes the directory's pid file when it names {@code deadPid}, a postmaster this process saw die: PostgreSQL would
     * take the file for a live server's while the killed one lasts as a zombie, or once its pid is given to another
     * process. A file naming any other pid (a server started since) is left alone.
     */
    static void removePidFileOf(final Path dataDirectory, final long deadPid) throws IOException
    {
        if (deadPid > 0 && pid(dataDirectory) == deadPid)
        {
            Files.deleteIfExists(dataDirectory.resolve(PID_FILE));
        }
    }

    /**
     * @return the directory of the binaries the directory's last server ran from, as {@value #OPTIONS_FILE} records it
     *         (the binary's path, unquoted, then each argument in double quotes).
     * @throws IOException when the file is missing or unreadable.
     */
    static Path binDirectory(final Path dataDirectory) throws IOException
    {
        final String options = Files.readString(dataDirectory.resolve(OPTIONS_FILE), StandardCharsets.UTF_8).trim();
        final int firstArgument = options.indexOf(" \"");
        final Path binary = Paths.get(firstArgument < 0 ? options : options.substring(0, firstArgument));
        if (binary.getParent() == null)
        {
            throw new IOException("no binary path in " + dataDirectory.resolve(OPTIONS_FILE) + ": " + options);
        }
        return binary.getParent();
    }

    /**
     * @return true when {@code /proc/<pid>/stat} shows the process as a zombie ({@code Z}) or dead ({@code X}); false when
     *         it runs, or where there is no {@code /proc} (the process handle alone decides there).
     */
    static boolean isZombie(final long pid)
    {
        final String stat;
        try
        {
            stat = Files.readString(Paths.get("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII);
        }
        catch (final IOException ex)
        {
            return false;
        }
        // "<pid> (<command, may hold spaces and parentheses>) <state> ..."
        final int endOfCommand = stat.lastIndexOf(')');
        if (endOfCommand < 0 || endOfCommand + 2 >= stat.length())
        {
            return false;
        }
        final char state = stat.charAt(endOfCommand + 2);
        return state == 'Z' || state == 'X';
    }
}
