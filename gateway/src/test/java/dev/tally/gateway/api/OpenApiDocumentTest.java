package dev.tally.gateway.api;

import dev.tally.gateway.api.problem.Problem;
import dev.tally.gateway.api.problem.ProblemType;
import dev.tally.gateway.api.routing.Route;

import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.command.CommandType;
import dev.tally.ledger.result.ResultCode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.tally.ledger.result.ResultCode.ACCOUNT_EXISTS;
import static dev.tally.ledger.result.ResultCode.ACCOUNT_NOT_FOUND;
import static dev.tally.ledger.result.ResultCode.AMOUNT_OVERFLOW;
import static dev.tally.ledger.result.ResultCode.INVALID_AMOUNT;
import static dev.tally.ledger.result.ResultCode.CAPACITY_EXCEEDED;
import static dev.tally.ledger.result.ResultCode.CAPTURE_EXCEEDS_HOLD;
import static dev.tally.ledger.result.ResultCode.COLD_INDEX_UNAVAILABLE;
import static dev.tally.ledger.result.ResultCode.CURRENCY_MISMATCH;
import static dev.tally.ledger.result.ResultCode.DUPLICATE_REFERENCE;
import static dev.tally.ledger.result.ResultCode.HOLD_NOT_ACTIVE;
import static dev.tally.ledger.result.ResultCode.INSUFFICIENT_FUNDS;
import static dev.tally.ledger.result.ResultCode.ACCOUNT_CLOSED;
import static dev.tally.ledger.result.ResultCode.ACCOUNT_FROZEN;
import static dev.tally.ledger.result.ResultCode.ACCOUNT_NOT_EMPTY;
import static dev.tally.ledger.result.ResultCode.INVALID_COMMAND;
import static dev.tally.ledger.result.ResultCode.KEY_REUSED;
import static dev.tally.ledger.result.ResultCode.LINKED_OPERATION_FAILED;
import static dev.tally.ledger.result.ResultCode.OK;
import static dev.tally.ledger.result.ResultCode.REFERENCE_CHECK_UNAVAILABLE;
import static dev.tally.ledger.result.ResultCode.REVERSAL_EXCEEDS_REMAINING;
import static dev.tally.ledger.result.ResultCode.SAME_ACCOUNT;
import static dev.tally.ledger.result.ResultCode.TRANSFER_NOT_FOUND;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Keeps {@code docs/openapi.yaml} and the server in step, both ways: every {@link Route} is documented and
 * every documented operation is a route; each operation documents exactly the statuses the implementation
 * can answer on it; every {@link ProblemType} is listed with its status, title and whether it is stored.
 *
 * <p>No YAML library: the document keeps a fixed block layout (see its header comment), so a line reader of
 * the {@code paths:} and {@code x-problem-types:} sections is enough.
 */
class OpenApiDocumentTest
{
    private static final String DOCUMENT = "docs/openapi.yaml";
    private static final Pattern PATH = Pattern.compile("^ {2}(/\\S*):\\s*$");
    private static final Pattern METHOD = Pattern.compile("^ {4}(get|put|post|delete|options|head|patch|trace):\\s*$");
    private static final Pattern STATUS = Pattern.compile("^ {8}'(\\d{3})':\\s*$");
    private static final Pattern PROBLEM_SLUG = Pattern.compile("^ {2}([a-z0-9-]+):\\s*$");
    private static final Pattern PROBLEM_MEMBER = Pattern.compile("^ {4}(status|title|stored|description):\\s*(.*)$");

    /**
     * What the ledger can answer to each command type (read off {@code Postings} and {@code Ledger.applyKeyed}):
     * every keyed command can also be {@code KEY_REUSED}, {@code CAPACITY_EXCEEDED} or {@code COLD_INDEX_UNAVAILABLE}.
     * {@code LINKED_OPERATION_FAILED} happens only inside an atomic batch, which the batch result covers.
     */
    private static final Map<CommandType, Set<ResultCode>> LEDGER_OUTCOMES = new EnumMap<>(Map.ofEntries(
        Map.entry(CommandType.CREATE_ACCOUNT, EnumSet.of(OK, INVALID_COMMAND, ACCOUNT_EXISTS, CAPACITY_EXCEEDED, KEY_REUSED, COLD_INDEX_UNAVAILABLE)),
        Map.entry(CommandType.TRANSFER, EnumSet.of(OK, INVALID_COMMAND, SAME_ACCOUNT, ACCOUNT_NOT_FOUND, ACCOUNT_FROZEN, ACCOUNT_CLOSED,
            CURRENCY_MISMATCH, DUPLICATE_REFERENCE, INSUFFICIENT_FUNDS, AMOUNT_OVERFLOW, CAPACITY_EXCEEDED, KEY_REUSED, REFERENCE_CHECK_UNAVAILABLE,
            COLD_INDEX_UNAVAILABLE)),
        Map.entry(CommandType.REVERSE_TRANSFER, EnumSet.of(OK, TRANSFER_NOT_FOUND, INVALID_COMMAND, INVALID_AMOUNT, CURRENCY_MISMATCH,
            REVERSAL_EXCEEDS_REMAINING, ACCOUNT_FROZEN, ACCOUNT_CLOSED, INSUFFICIENT_FUNDS, AMOUNT_OVERFLOW, CAPACITY_EXCEEDED, KEY_REUSED,
            COLD_INDEX_UNAVAILABLE)),
        Map.entry(CommandType.CREATE_HOLD, EnumSet.of(OK, INVALID_COMMAND, ACCOUNT_NOT_FOUND, ACCOUNT_FROZEN, ACCOUNT_CLOSED, CURRENCY_MISMATCH,
            INSUFFICIENT_FUNDS, AMOUNT_OVERFLOW, CAPACITY_EXCEEDED, KEY_REUSED, COLD_INDEX_UNAVAILABLE)),
        Map.entry(CommandType.CAPTURE_HOLD, EnumSet.of(OK, HOLD_NOT_ACTIVE, INVALID_COMMAND, INVALID_AMOUNT, CURRENCY_MISMATCH, CAPTURE_EXCEEDS_HOLD,
            ACCOUNT_NOT_FOUND, SAME_ACCOUNT, ACCOUNT_FROZEN, ACCOUNT_CLOSED, AMOUNT_OVERFLOW, CAPACITY_EXCEEDED, KEY_REUSED, COLD_INDEX_UNAVAILABLE)),
        Map.entry(CommandType.VOID_HOLD, EnumSet.of(OK, HOLD_NOT_ACTIVE, CAPACITY_EXCEEDED, KEY_REUSED, COLD_INDEX_UNAVAILABLE)),
        Map.entry(CommandType.FREEZE_ACCOUNT, EnumSet.of(OK, INVALID_COMMAND, ACCOUNT_NOT_FOUND, ACCOUNT_CLOSED, CAPACITY_EXCEEDED, KEY_REUSED, COLD_INDEX_UNAVAILABLE)),
        Map.entry(CommandType.UNFREEZE_ACCOUNT, EnumSet.of(OK, INVALID_COMMAND, ACCOUNT_NOT_FOUND, ACCOUNT_CLOSED, CAPACITY_EXCEEDED, KEY_REUSED,
            COLD_INDEX_UNAVAILABLE)),
        Map.entry(CommandType.CLOSE_ACCOUNT, EnumSet.of(OK, INVALID_COMMAND, ACCOUNT_NOT_FOUND, ACCOUNT_CLOSED, ACCOUNT_NOT_EMPTY, CAPACITY_EXCEEDED,
            KEY_REUSED, COLD_INDEX_UNAVAILABLE)),
        Map.entry(CommandType.UPDATE_ACCOUNT_METADATA, EnumSet.of(OK, INVALID_COMMAND, ACCOUNT_NOT_FOUND, ACCOUNT_CLOSED, CAPACITY_EXCEEDED,
            KEY_REUSED, COLD_INDEX_UNAVAILABLE)),
        Map.entry(CommandType.SET_LOW_BALANCE_ALERT, EnumSet.of(OK, INVALID_COMMAND, INVALID_AMOUNT, ACCOUNT_NOT_FOUND, ACCOUNT_CLOSED,
            CURRENCY_MISMATCH, CAPACITY_EXCEEDED, KEY_REUSED, COLD_INDEX_UNAVAILABLE))));

    /**
     * What the gateway itself answers on a single mutating route, before or around the ledger: 400 validation,
     * 401 authentication, 413 body limit, 503 not ready / ring full / journal halted. Routes whose path names a transfer
     * or a hold add 404 for an id that cannot name one; an account id in the path that is not one is a 400, and an unknown
     * account is the ledger's outcome.
     */
    private static final Set<Integer> GATEWAY_STATUSES_OF_A_COMMAND = Set.of(400, 401, 413, 503);

    private static String document;
    private static Map<String, DocumentedOperation> operations;
    private static Map<String, Map<String, String>> problemTypes;

    @BeforeAll
    static void readDocument() throws IOException
    {
        final Path file = locateDocument();
        document = Files.readString(file, StandardCharsets.UTF_8);
        final List<String> lines = document.lines().toList();
        operations = readOperations(lines);
        problemTypes = readProblemTypes(lines);
        assertFalse(operations.isEmpty(), "no operation found under paths: in " + file);
        assertFalse(problemTypes.isEmpty(), "no entry found under x-problem-types: in " + file);
    }

    /** The statuses each route can answer; a switch expression, so a new route does not compile until listed. */
    private static SortedSet<Integer> expectedStatuses(final Route route)
    {
        final SortedSet<Integer> statuses = expectedStatusesBeforeRateLimit(route);
        if (statuses.contains(401) && !route.isAdmin())
        {
            statuses.add(429); // the per-tenant rate limit applies to every route a tenant's key authenticates
        }
        return statuses;
    }

    private static SortedSet<Integer> expectedStatusesBeforeRateLimit(final Route route)
    {
        return switch (route)
        {
            case CREATE_ACCOUNT, CREATE_TRANSFER, REVERSE_TRANSFER, CREATE_HOLD, CAPTURE_HOLD, VOID_HOLD, FREEZE_ACCOUNT, UNFREEZE_ACCOUNT,
                CLOSE_ACCOUNT, UPDATE_ACCOUNT_METADATA, SET_LOW_BALANCE_ALERT, REMOVE_LOW_BALANCE_ALERT -> commandStatuses(route);
            // 200 with per-operation results; 400 whole-batch validation; 401; 413; 503 not ready / ring full / halted
            case BATCH -> statuses(200, 400, 401, 413, 503);
            // 404 for an unparseable id, an unknown or another tenant's resource; 503 not ready / ring full
            case GET_TRANSFER -> statuses(200, 401, 404, 503);
            // the same; at a past point (?at=, ?atIndex=) from PostgreSQL: 400 a bad or unreachable point, 503 no read model
            case GET_ACCOUNT -> statuses(200, 400, 401, 404, 503);
            // from PostgreSQL: 400 bad from/to or past the read model; 404 unknown account; 503 no read model / not ready
            case ACCOUNT_STATEMENT -> statuses(200, 400, 401, 404, 503);
            // served from PostgreSQL: 200 a page; 400 bad limit/after; 404 unknown account; 503 no read model / not ready
            case LIST_ACCOUNT_ENTRIES, LIST_ACCOUNT_TRANSFERS -> statuses(200, 400, 401, 404, 503);
            // served from PostgreSQL: 200 a page (possibly empty); 400 bad filter or cursor; 503 no read model / not ready
            case LIST_ACCOUNTS -> statuses(200, 400, 401, 503);
            // 400 a missing or malformed reference; 404 none of the tenant's; 503 not ready, the read model or cold index away
            case FIND_TRANSFER -> statuses(200, 400, 401, 404, 503);
            // 404 an unparseable id, an unknown or another tenant's hold; 503 not ready, the read model behind or away
            case GET_HOLD -> statuses(200, 401, 404, 503);
            case HEALTH, METRICS -> statuses(200);
            case READY -> statuses(200, 503);
            // 202 requested; 401 not the admin key; 404 no admin key configured; 409 --no-snapshots; 503 not ready
            case ADMIN_SNAPSHOT -> statuses(202, 401, 404, 409, 503);
        };
    }

    private static SortedSet<Integer> commandStatuses(final Route route)
    {
        final Set<ResultCode> outcomes = LEDGER_OUTCOMES.get(route.commandType());
        assertNotNull(outcomes, "no ledger outcomes listed for " + route.commandType());
        final SortedSet<Integer> expected = new TreeSet<>(GATEWAY_STATUSES_OF_A_COMMAND);
        if (route.hasPathId() && Operation.of(route).hasTarget())
        {
            expected.add(404);
        }
        for (final ResultCode code : outcomes)
        {
            expected.add(ResponseRenderer.statusOf(route.commandType(), code));
        }
        return expected;
    }

    @Test
    void shouldDocumentEveryRoute()
    {
        final List<String> missing = new ArrayList<>();
        for (final Route route : Route.values())
        {
            if (!operations.containsKey(key(route)))
            {
                missing.add(route + " (" + key(route) + ")");
            }
        }
        assertEquals(List.of(), missing, "routes missing from " + DOCUMENT);
    }

    @Test
    void shouldDocumentNothingButRoutes()
    {
        final Set<String> routes = new TreeSet<>();
        for (final Route route : Route.values())
        {
            routes.add(key(route));
        }
        final List<String> unknown = new ArrayList<>();
        for (final String documented : operations.keySet())
        {
            if (!routes.contains(documented))
            {
                unknown.add(documented);
            }
        }
        assertEquals(List.of(), unknown, "operations in " + DOCUMENT + " that Route does not have");
    }

    @Test
    void shouldDocumentExactlyTheStatusesEachRouteCanAnswer()
    {
        final List<String> mismatches = new ArrayList<>();
        for (final Route route : Route.values())
        {
            final DocumentedOperation operation = operations.get(key(route));
            if (operation == null)
            {
                continue; // reported by shouldDocumentEveryRoute
            }
            final SortedSet<Integer> expected = expectedStatuses(route);
            if (!expected.equals(operation.statuses))
            {
                final SortedSet<Integer> undocumented = new TreeSet<>(expected);
                undocumented.removeAll(operation.statuses);
                final SortedSet<Integer> neverAnswered = new TreeSet<>(operation.statuses);
                neverAnswered.removeAll(expected);
                mismatches.add(key(route) + ": expected " + expected + ", documented " + operation.statuses +
                    (undocumented.isEmpty() ? "" : ", missing " + undocumented) +
                    (neverAnswered.isEmpty() ? "" : ", never answered " + neverAnswered));
            }
        }
        assertEquals(List.of(), mismatches, "response statuses in " + DOCUMENT + " differ from the implementation");
    }

    @Test
    void shouldListTheLedgerOutcomesOfEveryCommandARouteSendsAndEveryResultCode()
    {
        final Set<CommandType> routed = EnumSet.noneOf(CommandType.class);
        for (final Route route : Route.values())
        {
            if (route.commandType() != null)
            {
                routed.add(route.commandType());
            }
        }
        assertEquals(routed, LEDGER_OUTCOMES.keySet(), "LEDGER_OUTCOMES must list exactly the command types of the routes");

        final Set<ResultCode> covered = EnumSet.of(LINKED_OPERATION_FAILED);
        LEDGER_OUTCOMES.values().forEach(covered::addAll);
        assertEquals(EnumSet.allOf(ResultCode.class), covered,
            "a ResultCode no route lists: add it to LEDGER_OUTCOMES and to the document");
    }

    @Test
    void shouldListEveryProblemTypeWithItsStatusTitleAndStorage()
    {
        final Map<ProblemType, ResultCode> ledgerCodes = new EnumMap<>(ProblemType.class);
        for (final ResultCode code : ResultCode.values())
        {
            if (!code.isSuccess())
            {
                ledgerCodes.put(ProblemType.of(code), code);
            }
        }
        final Set<String> slugs = new TreeSet<>();
        for (final ProblemType type : ProblemType.values())
        {
            slugs.add(type.slug());
            final Map<String, String> documented = problemTypes.get(type.slug());
            assertNotNull(documented, "x-problem-types lacks " + type.slug());
            assertEquals(String.valueOf(type.status()), documented.get("status"), type.slug() + " status");
            assertEquals(type.title(), documented.get("title"), type.slug() + " title");
            final ResultCode code = ledgerCodes.get(type);
            assertEquals(String.valueOf(code != null && code.isStored()), documented.get("stored"), type.slug() + " stored");
            assertTrue(document.contains("- " + type.uri() + "\n"), "the Problem schema's type enum lacks " + type.uri());
        }
        assertEquals(slugs, new TreeSet<>(problemTypes.keySet()), "x-problem-types must list exactly the ProblemType slugs");
    }

    @Test
    void shouldRequireTheIdempotencyKeyHeaderExactlyWhereTheServerDoes()
    {
        for (final Route route : Route.values())
        {
            final DocumentedOperation operation = operations.get(key(route));
            if (operation == null)
            {
                continue;
            }
            final boolean documented = operation.contains("$ref: '#/components/parameters/IdempotencyKey'");
            assertEquals(route.requiresIdempotencyKey(), documented, key(route) + " Idempotency-Key header parameter");
        }
    }

    @Test
    void shouldLeaveOnlyTheProbesWithoutAuthentication()
    {
        for (final Route route : Route.values())
        {
            final DocumentedOperation operation = operations.get(key(route));
            if (operation == null)
            {
                continue;
            }
            final boolean probe = route == Route.HEALTH || route == Route.READY || route == Route.METRICS;
            assertEquals(probe, operation.contains("security: []"), key(route) + " security override");
            assertEquals(!probe, operation.statuses.contains(401), key(route) + " documents 401");
        }
    }

    @Test
    void shouldDocumentTheChallengeOfEvery401AndTheRequestIdOfEveryReply()
    {
        final String unauthorized = componentBlock("    Unauthorized:");
        assertTrue(unauthorized.contains("WWW-Authenticate:\n          $ref: '#/components/headers/WWWAuthenticate'"), unauthorized);
        assertTrue(componentBlock("    WWWAuthenticate:").contains("const: Bearer realm=\"tally\""), "the challenge HttpReplies sends");
        // RequestIds.LENGTH_MAX visible ASCII characters, the same rule as an idempotency key's
        assertTrue(componentBlock("    RequestId:").contains("pattern: '^[!-~]{1,128}$'"), "the ids the server echoes");
        assertTrue(document.contains("## Request ids"), "how a request id is echoed or made");
    }

    @Test
    void shouldSayWhichAccountTheAccountProblemsName()
    {
        for (final String slug : List.of("account-not-found", "currency-mismatch"))
        {
            assertTrue(problemTypes.get(slug).get("description").contains("extension `accountId`"), slug);
        }
    }

    @Test
    void shouldGiveAccountIdsOutAsStringsAndTakeThemEitherWay()
    {
        final String out = componentBlock("    AccountIdOut:");
        assertTrue(out.contains("type: string") && out.contains("pattern: '^[1-9][0-9]{0,18}$'"), out);
        final String in = componentBlock("    AccountId:");
        assertTrue(in.contains("- type: integer") && in.contains("- type: string"), in);
        for (final String schema : List.of("AccountRead", "TransferCreated", "ReversalCreated", "TransferRead", "HoldRead", "HoldCreated",
            "CaptureCreated", "HoldVoided", "AccountLifecycle", "AccountListed", "Problem"))
        {
            final String block = componentBlock("    " + schema + ":");
            assertFalse(block.contains("schemas/AccountId'"), schema + " writes account ids as strings: AccountIdOut");
        }
    }

    /** @return the lines from {@code header} (a whole line) up to the next line indented as little or less. */
    private static String componentBlock(final String header)
    {
        final int start = document.indexOf("\n" + header + "\n");
        assertTrue(start >= 0, "no " + header.trim() + " in " + DOCUMENT);
        final int indent = header.length() - header.stripLeading().length();
        final List<String> lines = document.substring(start + 1).lines().toList();
        final StringBuilder block = new StringBuilder(lines.get(0));
        for (int i = 1; i < lines.size(); i++)
        {
            final String line = lines.get(i);
            if (!line.isBlank() && line.length() - line.stripLeading().length() <= indent)
            {
                break;
            }
            block.append('\n').append(line);
        }
        return block.toString();
    }

    @Test
    void shouldStateTheLimitsTheDecoderEnforces()
    {
        final String[] expected = {
            "maxItems: " + LedgerLimits.BATCH_OPERATIONS_MAX,
            "pattern: '^[!-~]{1," + LedgerLimits.IDEMPOTENCY_KEY_LENGTH_MAX + "}$'",
            "maxLength: " + LedgerLimits.IDEMPOTENCY_KEY_LENGTH_MAX,
            "pattern: '^[!-~]{1," + LedgerLimits.REFERENCE_LENGTH_MAX + "}$'",
            "maximum: " + LedgerLimits.SUB_BALANCES_MAX,
            "maximum: " + LedgerLimits.HOLD_TIMEOUT_MAX_MS,
            "maximum: " + Long.MAX_VALUE,
            "maxLength: " + BodyFields.AMOUNT_TEXT_LENGTH_MAX,
            "maxLength: " + Problem.TEXT_LENGTH_MAX,
            "maxProperties: " + Metadata.MEMBERS_MAX,
            "pattern: '^[A-Za-z0-9_.-]{1," + Metadata.NAME_LENGTH_MAX + "}$'",
            "maxLength: " + Metadata.VALUE_LENGTH_MAX,
            String.format(java.util.Locale.ROOT, "at most %,d bytes as compact JSON", LedgerLimits.METADATA_LENGTH_MAX),
            "application/problem+json",
            "Idempotent-Replayed",
            "Retry-After",
        };
        for (final String text : expected)
        {
            assertTrue(document.contains(text), DOCUMENT + " does not state " + text);
        }
        for (final String wireName : Operation.WIRE_NAMES.split(", "))
        {
            assertTrue(document.contains("        op:\n          const: " + wireName + "\n"), "no batch operation schema for op " + wireName);
        }
    }

    private static String key(final Route route)
    {
        return route.method() + " " + route.template();
    }

    private static SortedSet<Integer> statuses(final Integer... statuses)
    {
        return new TreeSet<>(List.of(statuses));
    }

    /** Reads {@code paths:}: path at indent 2, method at 4, {@code responses:} at 6, quoted status at 8. */
    private static Map<String, DocumentedOperation> readOperations(final List<String> lines)
    {
        final Map<String, DocumentedOperation> found = new LinkedHashMap<>();
        boolean inPaths = false;
        String path = null;
        DocumentedOperation operation = null;
        boolean inResponses = false;
        for (int i = 0; i < lines.size(); i++)
        {
            final String line = lines.get(i);
            if (line.isBlank() || line.stripLeading().startsWith("#"))
            {
                continue;
            }
            final int indent = line.length() - line.stripLeading().length();
            if (indent == 0)
            {
                inPaths = line.equals("paths:");
                path = null;
                operation = null;
                inResponses = false;
                continue;
            }
            if (!inPaths)
            {
                continue;
            }
            if (indent == 2)
            {
                final Matcher matcher = PATH.matcher(line);
                if (!matcher.matches())
                {
                    fail(DOCUMENT + " line " + (i + 1) + ": expected a path at indent 2, got: " + line);
                }
                path = matcher.group(1);
                operation = null;
                inResponses = false;
                continue;
            }
            if (indent == 4)
            {
                final Matcher matcher = METHOD.matcher(line);
                operation = null;
                inResponses = false;
                if (matcher.matches())
                {
                    final String key = matcher.group(1).toUpperCase(java.util.Locale.ROOT) + " " + path;
                    operation = new DocumentedOperation();
                    if (found.put(key, operation) != null)
                    {
                        fail(DOCUMENT + " line " + (i + 1) + ": " + key + " documented twice");
                    }
                }
                continue;
            }
            if (operation == null)
            {
                continue;
            }
            operation.lines.add(line);
            if (indent == 6)
            {
                inResponses = line.strip().equals("responses:");
                continue;
            }
            if (inResponses && indent == 8)
            {
                final Matcher matcher = STATUS.matcher(line);
                if (!matcher.matches())
                {
                    fail(DOCUMENT + " line " + (i + 1) + ": expected a quoted status such as '201': at indent 8, got: " + line);
                }
                if (!operation.statuses.add(Integer.parseInt(matcher.group(1))))
                {
                    fail(DOCUMENT + " line " + (i + 1) + ": status documented twice");
                }
            }
        }
        return found;
    }

    /** Reads {@code x-problem-types:}: slug at indent 2, then {@code status}, {@code title}, {@code stored} at 4. */
    private static Map<String, Map<String, String>> readProblemTypes(final List<String> lines)
    {
        final Map<String, Map<String, String>> found = new LinkedHashMap<>();
        boolean inSection = false;
        Map<String, String> current = null;
        for (final String line : lines)
        {
            if (line.isBlank() || line.stripLeading().startsWith("#"))
            {
                continue;
            }
            if (!line.startsWith(" "))
            {
                inSection = line.equals("x-problem-types:");
                current = null;
                continue;
            }
            if (!inSection)
            {
                continue;
            }
            final Matcher slug = PROBLEM_SLUG.matcher(line);
            if (slug.matches())
            {
                current = new LinkedHashMap<>();
                if (found.put(slug.group(1), current) != null)
                {
                    fail("x-problem-types lists " + slug.group(1) + " twice");
                }
                continue;
            }
            final Matcher member = PROBLEM_MEMBER.matcher(line);
            if (member.matches() && current != null)
            {
                current.put(member.group(1), member.group(2).strip());
            }
        }
        return found;
    }

    /**
     * Finds {@code docs/openapi.yaml} from the reactor root, the module directory (Surefire's {@code basedir}
     * and working directory) or any parent of them.
     */
    private static Path locateDocument()
    {
        final List<String> starts = new ArrayList<>();
        for (final String property : new String[] {"maven.multiModuleProjectDirectory", "basedir", "user.dir"})
        {
            final String value = System.getProperty(property);
            if (value != null)
            {
                starts.add(value);
            }
        }
        for (final String start : starts)
        {
            for (Path directory = Paths.get(start).toAbsolutePath(); directory != null; directory = directory.getParent())
            {
                final Path candidate = directory.resolve(DOCUMENT);
                if (Files.isRegularFile(candidate))
                {
                    return candidate;
                }
            }
        }
        return fail(DOCUMENT + " not found from " + starts);
    }

    /** One documented method of one path: its response statuses and its raw lines (for simple contains checks). */
    private static final class DocumentedOperation
    {
        final SortedSet<Integer> statuses = new TreeSet<>();
        final List<String> lines = new ArrayList<>();

        /** @return true when a line of the operation is {@code text}, alone or as a list item. */
        boolean contains(final String text)
        {
            for (final String line : lines)
            {
                final String stripped = line.strip();
                if (stripped.equals(text) || stripped.equals("- " + text))
                {
                    return true;
                }
            }
            return false;
        }
    }
}
