package dev.tally.gateway.http;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The API keys file: one key per line, only its SHA-256, never the key.
 *
 * <pre>
 *   # tenant:keyId:sha256 of the key in lower-case hex
 *   acme:3f9a1c0d2b7e:5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8
 * </pre>
 *
 * Blank lines and lines starting with {@code #} are ignored. {@code keyId} names the key so that it can
 * be revoked (delete its line) without anyone knowing the key. A file that does not parse is rejected as
 * a whole, with the line number: half a key set is worse than the previous one.
 */
public final class KeysFile
{
    /** Random bytes in a generated key: 256 bits, out of reach of any guessing. */
    public static final int KEY_BYTES = 32;
    /** Random bytes in a generated key id (12 hex characters): only needs to be unique per file. */
    public static final int KEY_ID_BYTES = 6;
    private static final Pattern TENANT = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private static final Pattern KEY_ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-fA-F]{64}");

    /** One line of the file. */
    public record Line(String tenant, String keyId, byte[] keyHash)
    {
    }

    /** A key just generated: the key itself, shown once, and the line that stores its hash. */
    public record NewKey(String keyId, String key, String line)
    {
    }

    private KeysFile()
    {
    }

    /**
     * @return every key line of the file.
     * @throws IllegalArgumentException naming the file and line of the first malformed entry (the entry itself is not echoed).
     * @throws IOException              when the file cannot be read.
     */
    public static List<Line> read(final Path file) throws IOException
    {
        final List<String> text = Files.readAllLines(file, StandardCharsets.UTF_8);
        final List<Line> lines = new ArrayList<>();
        final Set<String> ids = new HashSet<>();
        for (int i = 0; i < text.size(); i++)
        {
            final String line = text.get(i).strip();
            if (line.isEmpty() || line.startsWith("#"))
            {
                continue;
            }
            final String[] fields = line.split(":", -1);
            if (fields.length != 3 || !TENANT.matcher(fields[0]).matches() || !KEY_ID.matcher(fields[1]).matches() ||
                !SHA256_HEX.matcher(fields[2]).matches())
            {
                throw new IllegalArgumentException("keys file " + file + " line " + (i + 1) + ": expected tenant:keyId:sha256hex " +
                    "(tenant and keyId of [A-Za-z0-9._-], 64 hex digits)");
            }
            if (!ids.add(fields[0] + ':' + fields[1]))
            {
                throw new IllegalArgumentException("keys file " + file + " line " + (i + 1) + ": key id " + fields[1] + " of tenant " +
                    fields[0] + " appears twice");
            }
            lines.add(new Line(fields[0], fields[1], HexFormat.of().parseHex(fields[2].toLowerCase(Locale.ROOT))));
        }
        return lines;
    }

    /**
     * Generates a key for a tenant and appends its hash to the file (created owner-only when absent).
     *
     * @return the key, to be shown once; the file never holds it.
     */
    public static NewKey add(final Path file, final String tenant, final SecureRandom random) throws IOException
    {
        if (!TENANT.matcher(tenant).matches())
        {
            throw new IllegalArgumentException("tenant must be 1 to 64 characters of [A-Za-z0-9._-]");
        }
        if (Files.exists(file))
        {
            read(file); // refuse to append to a file the server would reject
        }
        final byte[] secret = new byte[KEY_BYTES];
        random.nextBytes(secret);
        final byte[] id = new byte[KEY_ID_BYTES];
        random.nextBytes(id);
        final String key = Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
        final String keyId = HexFormat.of().formatHex(id);
        final String line = tenant + ':' + keyId + ':' + HexFormat.of().formatHex(ApiKeys.sha256(key));
        createOwnerOnly(file);
        Files.writeString(file, line + System.lineSeparator(), StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        return new NewKey(keyId, key, line);
    }

    /** Hashes are not keys, but who may add or delete lines is who may grant access: owner-only from the start. */
    private static void createOwnerOnly(final Path file) throws IOException
    {
        try
        {
            if (file.getFileSystem().supportedFileAttributeViews().contains("posix"))
            {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            }
            else
            {
                Files.createFile(file);
            }
            Files.writeString(file, "# tenant:keyId:sha256hex — written by `tally keys add`; delete a line to revoke that key" +
                System.lineSeparator(), StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        }
        catch (final FileAlreadyExistsException ex)
        {
            // appending to an existing file
        }
    }
}
