package dev.tally.gateway.api;

import dev.tally.gateway.api.routing.Router;

import dev.tally.gateway.api.routing.RouteMatch;

import dev.tally.gateway.api.routing.Route;

import dev.tally.gateway.api.problem.ProblemType;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RouterTest
{
    private final Router router = new Router();
    private final RouteMatch match = new RouteMatch();

    @ParameterizedTest(name = "{0} {1} -> {2} id={3}")
    @CsvSource(nullValues = "-", value = {
        "POST, /v1/accounts, CREATE_ACCOUNT, -",
        "GET, /v1/accounts/42, GET_ACCOUNT, 42",
        "GET, /v1/accounts/42/entries, LIST_ACCOUNT_ENTRIES, 42",
        "GET, /v1/accounts, LIST_ACCOUNTS, -",
        "GET, /v1/accounts/42/transfers, LIST_ACCOUNT_TRANSFERS, 42",
        "GET, /v1/accounts/42/statement, ACCOUNT_STATEMENT, 42",
        "POST, /v1/transfers, CREATE_TRANSFER, -",
        "GET, /v1/transfers, FIND_TRANSFER, -",
        "GET, /v1/transfers/0190a5b2-1c3d-7000-8000-000000004000, GET_TRANSFER, 0190a5b2-1c3d-7000-8000-000000004000",
        "POST, /v1/transfers/abc/reversals, REVERSE_TRANSFER, abc",
        "POST, /v1/holds, CREATE_HOLD, -",
        "GET, /v1/holds/h1, GET_HOLD, h1",
        "POST, /v1/holds/h1/capture, CAPTURE_HOLD, h1",
        "POST, /v1/holds/h1/void, VOID_HOLD, h1",
        "PUT, /v1/accounts/42/low-balance-alert, SET_LOW_BALANCE_ALERT, 42",
        "DELETE, /v1/accounts/42/low-balance-alert, REMOVE_LOW_BALANCE_ALERT, 42",
        "POST, /v1/batch, BATCH, -",
        "GET, /health, HEALTH, -",
        "GET, /ready, READY, -",
        "GET, /metrics, METRICS, -",
    })
    void shouldMatchEveryRouteWithItsPathId(final String method, final String uri, final Route route, final String id)
    {
        assertTrue(router.match(method, uri, match));
        assertEquals(route, match.route());
        assertEquals(id, match.pathId());
        assertNull(match.problem());
        assertNull(match.query());
    }

    @Test
    void shouldSeparateTheQueryStringFromThePath()
    {
        assertTrue(router.match("GET", "/v1/accounts/42/entries?limit=100&after=7", match));
        assertEquals(Route.LIST_ACCOUNT_ENTRIES, match.route());
        assertEquals("42", match.pathId());
        assertEquals("limit=100&after=7", match.query());
        assertTrue(router.match("GET", "/v1/transfers?reference=inv-1", match));
        assertEquals(Route.FIND_TRANSFER, match.route());
        assertNull(match.pathId());
        assertEquals("reference=inv-1", match.query());
    }

    @ParameterizedTest(name = "{0} {1} -> 405 allow {2}")
    @CsvSource({
        "DELETE, /v1/accounts, 'POST, GET'",
        "DELETE, /v1/accounts/42, GET",
        "POST, /v1/accounts/42, GET",
        "PUT, /v1/transfers, 'POST, GET'",
        "POST, /v1/holds/h1, GET",
        "POST, /v1/accounts/42/transfers, GET",
        "PUT, /v1/holds/h/capture, POST",
        "POST, /v1/accounts/42/low-balance-alert, 'PUT, DELETE'",
        "GET, /v1/batch, POST",
        "POST, /health, GET",
        "HEAD, /metrics, GET",
        "get, /health, GET",
    })
    void shouldAnswerMethodNotAllowedOnAKnownPathWithAnotherMethod(final String method, final String uri, final String allow)
    {
        assertFalse(router.match(method, uri, match));
        assertNull(match.route());
        assertEquals(ProblemType.METHOD_NOT_ALLOWED, match.problem().type());
        assertEquals(405, match.problem().status());
        assertEquals(allow, match.allow());
    }

    @ParameterizedTest
    @ValueSource(strings = {"/", "", "v1/accounts", "/v1", "/v1/", "/v1/accounts/", "/v1/accounts//entries", "/v1/accounts/42/", "/v1/accounts/42/entries/x",
        "/v2/accounts", "/v1/holds/h1/x", "/v1/holds/h1/capture/", "/v1/transfers/t/reversal", "/healthz", "/health/", "//health", "/V1/accounts",
        "/v1/accountsx", "/v1/batch/1", "*"})
    void shouldAnswerNotFoundForAnyOtherPath(final String uri)
    {
        assertFalse(router.match("POST", uri, match));
        assertFalse(router.match("GET", uri, match));
        assertEquals(ProblemType.NOT_FOUND, match.problem().type());
        assertEquals(404, match.problem().status());
        assertNull(match.allow());
    }

    @Test
    void shouldSayWhichRoutesNeedAnIdempotencyKeyHeader()
    {
        for (final Route route : Route.values())
        {
            final boolean needsKey = route.isMutating() && route != Route.BATCH;
            assertEquals(needsKey, route.requiresIdempotencyKey(), route.name());
        }
    }

    @Test
    void shouldDecodeEachSingleCommandRouteIntoItsCommandType()
    {
        for (final Route route : Route.values())
        {
            final Operation operation = Operation.of(route);
            assertEquals(route.commandType(), operation == null ? null : operation.commandType(), route.name());
            assertEquals(operation != null && (operation.hasTarget() || operation.accountInPath()), route.hasPathId() && route.isMutating(),
                route.name());
        }
    }
}
