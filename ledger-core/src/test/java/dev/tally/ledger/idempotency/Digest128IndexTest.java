package dev.tally.ledger.idempotency;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class Digest128IndexTest
{
    /** A 128-bit digest. */
    record Key(long hi, long lo)
    {
    }

    /** The home bucket the index computes for a digest, read through reflection so the test follows its hash. */
    private static int homeBucket(final Digest128Index index, final Key key) throws ReflectiveOperationException
    {
        final Method bucketOf = Digest128Index.class.getDeclaredMethod("bucketOf", long.class, long.class);
        bucketOf.setAccessible(true);
        return (int)bucketOf.invoke(index, key.hi(), key.lo());
    }

    /** Finds {@code count} digests whose home bucket is {@code bucket}. */
    private static List<Key> keysHomedAt(final Digest128Index index, final int bucket, final int count, final long seed)
        throws ReflectiveOperationException
    {
        final List<Key> keys = new ArrayList<>();
        final Random random = new Random(seed);
        while (keys.size() < count)
        {
            final Key key = new Key(random.nextLong(), random.nextLong());
            if (homeBucket(index, key) == bucket)
            {
                keys.add(key);
            }
        }
        return keys;
    }

    private static void assertIndexed(final Digest128Index index, final Map<Key, Integer> expected, final List<Key> removed)
    {
        for (final Map.Entry<Key, Integer> e : expected.entrySet())
        {
            assertEquals(e.getValue(), index.get(e.getKey().hi(), e.getKey().lo()), "lost " + e.getKey());
        }
        for (final Key key : removed)
        {
            assertEquals(Digest128Index.MISSING, index.get(key.hi(), key.lo()), "still finds removed " + key);
        }
        assertEquals(expected.size(), index.size());
    }

    @Test
    void shouldFindEveryDigestOfCollidingRunsThatWrapAroundTheTableWhileTheyAreRemovedInAnyOrder() throws Exception
    {
        // capacity 16 -> 32 buckets; runs homed at the last bucket wrap into the first ones and merge with theirs
        for (long seed = 1; seed <= 20; seed++)
        {
            final Digest128Index index = new Digest128Index(16);
            final List<Key> keys = new ArrayList<>();
            keys.addAll(keysHomedAt(index, 31, 6, seed));
            keys.addAll(keysHomedAt(index, 0, 3, seed + 100));
            keys.addAll(keysHomedAt(index, 2, 3, seed + 200));
            keys.addAll(keysHomedAt(index, 29, 2, seed + 300));
            final Map<Key, Integer> expected = new HashMap<>();
            for (int i = 0; i < keys.size(); i++)
            {
                assertTrue(index.put(keys.get(i).hi(), keys.get(i).lo(), i));
                expected.put(keys.get(i), i);
            }
            assertIndexed(index, expected, List.of());

            final List<Key> order = new ArrayList<>(keys);
            java.util.Collections.shuffle(order, new Random(seed));
            final List<Key> removed = new ArrayList<>();
            for (final Key key : order)
            {
                assertEquals(expected.remove(key), index.remove(key.hi(), key.lo()));
                removed.add(key);
                assertIndexed(index, expected, removed);
            }
        }
    }

    @Test
    void shouldRefusePutBeyondCapacity()
    {
        final Digest128Index index = new Digest128Index(3);
        for (int i = 0; i < 3; i++)
        {
            assertTrue(index.put(i, i, i));
        }

        assertFalse(index.put(9, 9, 9));
        assertEquals(3, index.size());
        assertEquals(Digest128Index.MISSING, index.get(9, 9));
        index.remove(0, 0);
        assertTrue(index.put(9, 9, 9));
    }

    @Test
    void shouldTellDigestsApartThatShareOneHalf()
    {
        final Digest128Index index = new Digest128Index(8);
        index.put(1, 2, 10);
        index.put(1, 3, 11);
        index.put(2, 2, 12);

        assertEquals(10, index.get(1, 2));
        assertEquals(11, index.get(1, 3));
        assertEquals(12, index.get(2, 2));
        assertEquals(Digest128Index.MISSING, index.get(2, 3));
    }

    @Test
    void shouldRejectADigestAlreadyIndexedAndANegativeValue()
    {
        final Digest128Index index = new Digest128Index(8);
        index.put(1, 2, 10);

        assertThrows(IllegalStateException.class, () -> index.put(1, 2, 11));
        assertThrows(IllegalArgumentException.class, () -> index.put(3, 4, -1));
        assertEquals(10, index.get(1, 2));
    }

    @Test
    void shouldForgetEverythingOnClear()
    {
        final Digest128Index index = new Digest128Index(8);
        index.put(1, 2, 10);
        index.clear();

        assertEquals(0, index.size());
        assertEquals(Digest128Index.MISSING, index.get(1, 2));
        assertTrue(index.put(1, 2, 11));
    }

    /** One step against the index and a HashMap: 0 put, 1 remove, 2 get. */
    record Op(int kind, Key key, int value)
    {
    }

    @Provide
    Arbitrary<List<Op>> operations()
    {
        // A small universe of digests, some sharing a half, so that puts meet present keys and removes hit.
        final Arbitrary<Key> keys = Combinators.combine(Arbitraries.longs().between(0, 5), Arbitraries.longs().between(0, 7))
            .as((hi, lo) -> new Key(hi * 0x9E3779B97F4A7C15L, lo));
        final Arbitrary<Op> op = Combinators.combine(Arbitraries.integers().between(0, 2), keys, Arbitraries.integers().between(0, 1_000))
            .as(Op::new);
        return op.list().ofMinSize(1).ofMaxSize(300);
    }

    @Property(tries = 300)
    void shouldBehaveLikeHashMapBoundedByCapacity(@ForAll("operations") final List<Op> ops)
    {
        final int capacity = 12;
        final Digest128Index index = new Digest128Index(capacity);
        final Map<Key, Integer> model = new HashMap<>();
        for (final Op op : ops)
        {
            final Key k = op.key();
            switch (op.kind())
            {
                case 0:
                    if (model.containsKey(k) && model.size() < capacity)
                    {
                        assertThrows(IllegalStateException.class, () -> index.put(k.hi(), k.lo(), op.value()));
                    }
                    else if (model.containsKey(k))
                    {
                        assertFalse(index.put(k.hi(), k.lo(), op.value()), "a full index stores nothing");
                    }
                    else
                    {
                        final boolean fits = model.size() < capacity;
                        assertEquals(fits, index.put(k.hi(), k.lo(), op.value()));
                        if (fits)
                        {
                            model.put(k, op.value());
                        }
                    }
                    break;
                case 1:
                    final Integer removed = model.remove(k);
                    assertEquals(removed == null ? Digest128Index.MISSING : removed, index.remove(k.hi(), k.lo()));
                    break;
                default:
                    final Integer value = model.get(k);
                    assertEquals(value == null ? Digest128Index.MISSING : value, index.get(k.hi(), k.lo()));
            }
            assertEquals(model.size(), index.size());
        }
        model.forEach((k, v) -> assertEquals(v, index.get(k.hi(), k.lo())));
    }
}
