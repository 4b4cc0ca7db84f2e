package dev.tally.gateway.http;

import dev.tally.persistence.read.AccountTransfersFilter;
import dev.tally.persistence.read.AccountsFilter;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
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
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> ReadQuery.reference(query));
        assertTrue(refused.getMessage().contains(detail), refused.getMessage());
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
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> ReadQuery.accounts(query));
        assertTrue(refused.getMessage().contains(detail), refused.getMessage());
        assertEquals(refused.getMessage(), ReadQuery.invalid(query, ReadQuery::accounts));
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
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> ReadQuery.accountTransfers(query));
        assertTrue(refused.getMessage().contains(detail), refused.getMessage());
    }
}
