package dev.tally.gateway.http;

import dev.tally.persistence.read.AccountTransfersFilter;
import dev.tally.persistence.read.AccountsFilter;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReadQueryTest
{
    @Test
    void shouldPercentDecodeAReferenceAndKeepAPlusSign()
    {
        assertEquals("a/b&c=d+e%f", ReadQuery.reference("reference=a%2Fb%26c%3Dd+e%25f"));
        assertEquals("inv-45982", ReadQuery.reference("reference=inv-45982"));
        assertEquals("x".repeat(64), ReadQuery.reference("reference=" + "x".repeat(64)));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "''|reference is required",
        "reference|reference has no value",
        "reference=a&reference=a|reference is given more than once",
        "reference=a&limit=5|unknown query parameter 'limit'",
        "reference=a%2|malformed percent escape",
        "reference=a%g0|malformed percent escape",
        "reference=a%20b|visible ASCII",
        "reference=%C3%A9|visible ASCII",
        "reference=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx|1 to 64",
    })
    void shouldRefuseABadReferenceQuerySayingWhy(final String query, final String detail)
    {
        assertRefused(ReadQuery::reference, query, detail);
    }

    @Test
    void shouldReadAnAccountsPageWithItsDefaults()
    {
        assertEquals(new AccountsFilter(null, null, null, 0, 100), ReadQuery.accounts(null));
        assertEquals(new AccountsFilter(null, null, null, 0, 100), ReadQuery.accounts(""));
        assertEquals(new AccountsFilter("USD", Instant.parse("2026-01-01T00:00:00Z"), Instant.parse("2026-01-31T21:00:00Z"), 42, 1000),
            ReadQuery.accounts("currency=USD&createdFrom=2026-01-01T00:00:00Z&createdTo=2026-02-01T00:00:00%2B03:00&after=42&limit=1000"));
        assertEquals(Instant.parse("2026-01-01T00:00:00Z"), ReadQuery.accounts("createdFrom=2026-01-01T00:00:00Z&createdTo=2026-01-01T00:00:00Z")
            .createdTo(), "an empty range is no error");
    }

    @Test
    void shouldReadEveryMetadataMemberAsTheObjectTheAccountsMetadataMustContain()
    {
        final AccountsFilter filter = ReadQuery.accounts("metadata=team:ops&currency=TRY&metadata=note:a%3Ab%20%22c%22&metadata=city:S%C3%A3o");

        assertEquals(List.of("{\"team\":\"ops\"}", "{\"note\":\"a:b \\\"c\\\"\"}", "{\"city\":\"S\u00e3o\"}"), filter.metadata());
        assertEquals("TRY", filter.currency());
        assertEquals(List.of("{\"team\":\"\"}"), ReadQuery.accounts("metadata=team:").metadata(), "an empty value is a value");
        assertThrows(IllegalArgumentException.class, () -> ReadQuery.accounts("metadata=a:1" + "&metadata=a:1".repeat(20)),
            "at most 20 members");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "limit=0|limit must be an integer from 1 to 1000",
        "limit=1001|limit must be an integer from 1 to 1000",
        "limit=00001|limit must be an integer from 1 to 1000",
        "limit=+5|limit must be an integer from 1 to 1000",
        "after=0|after must be the next cursor",
        "after=-3|after must be the next cursor",
        "after=9223372036854775808|after must be the next cursor",
        "currency=usd|currency must be an ISO 4217 code",
        "currency=XXX|currency must be an ISO 4217 code",
        "createdFrom=2026-01-01T00:00:00|createdFrom must be an RFC 3339 date-time",
        "createdFrom=2026-01-01T00:00:00 03:00|createdFrom must be an RFC 3339 date-time",
        "createdTo=10000-01-01T00:00:00Z|createdTo must be an RFC 3339 date-time",
        "createdFrom=1969-12-31T23:59:59.999Z|between 1970",
        "createdFrom=2026-01-02T00:00:00Z&createdTo=2026-01-01T00:00:00Z|is after createdTo",
        "metadata=team|metadata must be name:value",
        "metadata=:ops|metadata must be name:value",
        "metadata=bad%20name:x|metadata member names must be 1 to 40",
        "metadata=team:%FF|metadata values must be percent-encoded UTF-8",
        "metadata=team:%00|must not contain U+0000",
        "metadata.team=ops|unknown query parameter 'metadata.team'",
    })
    void shouldRefuseABadAccountsQuerySayingWhy(final String query, final String detail)
    {
        assertEquals(assertRefused(ReadQuery::accounts, query, detail), ReadQuery.invalid(query, ReadQuery::accounts));
    }

    @Test
    void shouldReadAnAccountsTransfersPage()
    {
        final String entry = "01a25044-da94-7200-8000-000000068001";
        final AccountTransfersFilter filter = ReadQuery.accountTransfers(
            "from=2026-01-01T00:00:00.5Z&to=2026-02-01T00:00:00Z&direction=debit&after=" + entry + "&limit=7");
        assertEquals(new AccountTransfersFilter(Instant.parse("2026-01-01T00:00:00.500Z"), Instant.parse("2026-02-01T00:00:00Z"),
            AccountTransfersFilter.DEBIT, UUID.fromString(entry), 7), filter);
        assertEquals(AccountTransfersFilter.CREDIT, ReadQuery.accountTransfers("direction=credit").direction());
        assertEquals(AccountTransfersFilter.ANY, ReadQuery.accountTransfers("direction=any").direction());
        assertEquals(AccountTransfersFilter.ANY, ReadQuery.accountTransfers(null).direction());
        assertNull(ReadQuery.invalid("direction=any", ReadQuery::accountTransfers));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "direction=out|direction must be debit, credit or any",
        "direction=DEBIT|direction must be debit, credit or any",
        "from=yesterday|from must be an RFC 3339 date-time",
        "to=2026-02-30T00:00:00Z|to must be an RFC 3339 date-time",
        "from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z|is after to",
        "after=01a25044-da94-7000-8000-000000068000|after must be the next cursor",
        "after=01A25044-DA94-7200-8000-000000068001|after must be the next cursor",
        "after=01a25044-da94-7200-0000-000000068001|after must be the next cursor",
        "after=not-a-cursor|after must be the next cursor",
        "limit=|limit has no value",
        "createdFrom=2026-01-01T00:00:00Z|unknown query parameter 'createdFrom'",
    })
    void shouldRefuseABadAccountTransfersQuerySayingWhy(final String query, final String detail)
    {
        assertRefused(ReadQuery::accountTransfers, query, detail);
    }

    // ---- the history reads: entries, an account at a point, statements (one parser with the listings) ----

    @Test
    void shouldReadAnEntriesPage()
    {
        final String entry = "01a25044-da94-7200-8000-000000068001";
        assertEquals(new ReadQuery.EntriesPage(100, null), ReadQuery.entries(null));
        assertEquals(new ReadQuery.EntriesPage(7, UUID.fromString(entry)), ReadQuery.entries("limit=7&after=" + entry));
    }

    @Test
    void shouldReadAPointOfTheJournal()
    {
        assertNull(ReadQuery.point(null), "no point: the account now");
        assertEquals(new ReadQuery.Point(Instant.parse("2026-12-01T00:00:00Z"), -1), ReadQuery.point("at=2026-12-01T03:00:00%2B03:00"));
        assertEquals(new ReadQuery.Point(Instant.parse("2026-12-01T00:00:00Z"), -1), ReadQuery.point("at=2026-12-01T03:00:00+03:00"),
            "+ is a plus sign");
        assertEquals(new ReadQuery.Point(Instant.parse("2026-12-01T00:00:00Z"), -1), ReadQuery.point("at=2026-12-01t00:00:00z"),
            "RFC 3339 allows t and z in lower case");
        assertEquals(new ReadQuery.Point(null, 0), ReadQuery.point("atIndex=0"));
        assertEquals(new ReadQuery.Point(null, ReadQuery.JOURNAL_INDEX_MAX), ReadQuery.point("atIndex=" + ReadQuery.JOURNAL_INDEX_MAX));
        assertEquals(Instant.parse("9999-12-31T23:59:59.999999Z"), ReadQuery.point("at=9999-12-31T23:59:59.999999Z").at(),
            "the last microsecond of 9999");
    }

    @Test
    void shouldReadAStatementsPeriod()
    {
        assertEquals(new ReadQuery.Period(Instant.parse("2026-12-01T00:00:00Z"), Instant.parse("2026-12-31T23:59:59Z")),
            ReadQuery.period("from=2026-12-01T00:00:00Z&to=2026-12-31T23:59:59Z"));
        assertEquals(new ReadQuery.Period(Instant.parse("2026-12-01T00:00:00Z"), Instant.parse("2026-12-01T00:00:00Z")),
            ReadQuery.period("to=2026-12-01T00:00:00Z&from=2026-12-01T00:00:00Z"), "an empty period, either order of parameters");
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
        "entries|limit=0|limit must be an integer from 1 to 1000",
        "entries|limit=+5|limit must be an integer from 1 to 1000",
        "entries|limit=5&limit=6|limit is given more than once",
        "entries|after=|after has no value",
        "entries|after=01A25044-DA94-7200-8000-000000068001|after must be the next cursor",
        "entries|after=01a25044-da94-7000-8000-000000068000|after must be the next cursor",
        "entries|after=not-an-entry|after must be the next cursor",
        "entries|from=2026-01-01T00:00:00Z|unknown query parameter 'from'; this route takes after, limit",
        "point|at=2026-12-01T00:00:00Z&atIndex=5|give at or atIndex, not both",
        "point|at=yesterday|at must be an RFC 3339 date-time",
        "point|at=2026-12-01T00:00:00|at must be an RFC 3339 date-time",
        "point|at=1969-12-31T23:59:59Z|between 1970",
        "point|at=9999-12-31T23:59:59.9999991Z|between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59.999999Z",
        "point|atIndex=-1|atIndex must be a journal index",
        "point|atIndex=+5|atIndex must be a journal index",
        "point|atIndex=x|atIndex must be a journal index",
        "point|atIndex=281474976710656|atIndex must be a journal index from 0 to 281474976710655",
        "point|atIndex=99999999999999999999|atIndex must be a journal index",
        "point|at=|at has no value",
        "point|at=2026-12-01T00:00:00Z&at=2026-12-02T00:00:00Z|at is given more than once",
        "point|expand=balances|unknown query parameter 'expand'; this route takes at, atIndex",
        "period|''|a statement needs from and to",
        "period|from=2026-12-01T00:00:00Z|a statement needs from and to",
        "period|from=2026-12-02T00:00:00Z&to=2026-12-01T00:00:00Z|is after to",
        "period|from=x&to=2026-12-01T00:00:00Z|from must be an RFC 3339 date-time",
        "period|from=2026-12-01T00:00:00Z&to=2026-12-02T00:00:00Z&limit=5|unknown query parameter 'limit'; this route takes from, to",
    })
    void shouldRefuseABadHistoryQuerySayingWhy(final String read, final String query, final String detail)
    {
        final Function<String, ?> parse = switch (read)
        {
            case "entries" -> ReadQuery::entries;
            case "point" -> ReadQuery::point;
            default -> ReadQuery::period;
        };
        assertRefused(parse, query, detail);
    }

    @Test
    void shouldBoundEveryInstantByTheSameMicrosecondRule()
    {
        assertNull(ReadQuery.invalid("createdTo=9999-12-31T23:59:59.999999Z", ReadQuery::accounts));
        assertTrue(ReadQuery.invalid("createdTo=9999-12-31T23:59:59.9999999Z", ReadQuery::accounts).contains("between"),
            "a listing's instant past the last microsecond of 9999, which PostgreSQL would round past");
        assertTrue(ReadQuery.invalid("to=9999-12-31T23:59:59.9999999Z", ReadQuery::accountTransfers).contains("between"));
        assertEquals(Instant.parse("2026-01-01T00:00:00Z"), ReadQuery.accounts("createdFrom=2026-01-01t00:00:00z").createdFrom(),
            "lower-case t and z on the listings too");
    }

    /** @return the detail {@code parse} refuses {@code query} with, which must contain {@code detail}. */
    private static String assertRefused(final Function<String, ?> parse, final String query, final String detail)
    {
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> parse.apply(query));
        assertTrue(refused.getMessage().contains(detail), refused.getMessage());
        return refused.getMessage();
    }
}
