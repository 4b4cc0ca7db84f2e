package dev.tally.gateway.api.routing;

import dev.tally.ledger.id.Uuid7;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ResourceIdTest
{
    private final ResourceId id = new ResourceId();

    @Test
    void shouldParsePositiveSixtyThreeBitAccountIds()
    {
        assertEquals(1, ResourceId.parseAccountId("1"));
        assertEquals(42, ResourceId.parseAccountId("42"));
        assertEquals(Long.MAX_VALUE, ResourceId.parseAccountId("9223372036854775807"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "0", "01", "-1", "+1", "9223372036854775808", "9999999999999999999", "18446744073709551617",
        "99999999999999999999", "1.0", "1e3", " 1", "abc", "١"})
    void shouldRejectAnythingElseAsAnAccountId(final String text)
    {
        assertEquals(ResourceId.INVALID_ACCOUNT_ID, ResourceId.parseAccountId(text));
    }

    @Property
    void shouldParseEveryPositiveLongAsItsDecimalText(@ForAll @LongRange(min = 1, max = Long.MAX_VALUE) final long accountId)
    {
        assertEquals(accountId, ResourceId.parseAccountId(Long.toString(accountId)));
    }

    @Property
    void shouldParseEveryTransferAndHoldIdTallyIssues(
        @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) final long timestampNs,
        @ForAll @LongRange(min = 1, max = (1L << 48) - 1) final long journalIndex)
    {
        for (final int kind : new int[] {Uuid7.KIND_TRANSFER, Uuid7.KIND_HOLD})
        {
            final long hi = Uuid7.hi(timestampNs, kind);
            final long lo = Uuid7.lo(journalIndex, 0);
            final String text = Uuid7.toString(hi, lo);
            assertTrue(id.parse(text, kind));
            assertEquals(hi, id.hi());
            assertEquals(lo, id.lo());
            assertTrue(id.parse(text.toUpperCase(java.util.Locale.ROOT), kind));
            assertEquals(lo, id.lo());
            assertFalse(id.parse(text, kind == Uuid7.KIND_TRANSFER ? Uuid7.KIND_HOLD : Uuid7.KIND_TRANSFER));
        }
    }

    @Test
    void shouldRejectIdsTallyCannotHaveIssued()
    {
        final long hi = Uuid7.hi(1_700_000_000_000_000_000L, Uuid7.KIND_TRANSFER);
        assertFalse(id.parse(Uuid7.toString(hi, Uuid7.lo(0, 0)), Uuid7.KIND_TRANSFER), "journal index 0");
        assertFalse(id.parse(Uuid7.toString(hi, Uuid7.lo(5, 1)), Uuid7.KIND_TRANSFER), "ordinal 1 is an entry leg, not a transfer");
        assertFalse(id.parse(Uuid7.toString(hi, 5L << 14), Uuid7.KIND_TRANSFER), "wrong variant");
        assertFalse(id.parse(Uuid7.toString(hi & ~0xF000L | 0x4000L, Uuid7.lo(5, 0)), Uuid7.KIND_TRANSFER), "version 4");
        assertFalse(id.parse(Uuid7.toString(hi | 0x1L, Uuid7.lo(5, 0)), Uuid7.KIND_TRANSFER), "reserved bits set");
        assertFalse(id.parse(Uuid7.toString(Uuid7.hi(0, Uuid7.KIND_ENTRY), Uuid7.lo(5, 0)), Uuid7.KIND_TRANSFER), "entry kind");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "abc", "0190a5b2-1c3d-7000-8000-00000000400", "0190a5b2-1c3d-7000-8000-0000000040000",
        "0190a5b21c3d70008000000000004000xxxx", "0190a5b2+1c3d-7000-8000-000000004000", "0190a5b2-1c3d-7000-8000-00000000400g",
        "{0190a5b2-1c3d-7000-8000-000000004000}", "0190a5b2-1c3d-7000-8000-00000000400\u0661"})
    void shouldRejectMalformedUuidText(final String text)
    {
        assertFalse(id.parse(text, Uuid7.KIND_TRANSFER));
        assertEquals(0, id.hi());
        assertEquals(0, id.lo());
    }
}
