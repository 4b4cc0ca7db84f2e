package dev.tally.ledger.table;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
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

    /**
     * What an owner looks like to the index: a {@code long[]} of (hi, lo) entries with a stride of 3 and a
     * base of 1, so that a mix-up of base, stride or offsets shows, plus a free list of slots.
     */
    private static final class Owner
    {
        final long[] digests;
        final Digest128Index index;
        final ArrayDeque<Integer> free = new ArrayDeque<>();

        Owner(final int capacity)
        {
            digests = new long[1 + 3 * capacity];
            index = new Digest128Index(capacity, digests, 1, 3, 2, 0);
            for (int i = 0; i < capacity; i++)
            {
                free.add(i);
            }
        }

        /** Writes the digest into a free slot, then indexes it; @return the slot, or -1 when none is free. */
        int put(final Key key)
        {
            if (free.isEmpty())
            {
                return -1;
            }
            final int slot = free.poll();
            digests[1 + 3 * slot + 2] = key.hi();
            digests[1 + 3 * slot] = key.lo();
            if (!index.put(key.hi(), key.lo(), slot))
            {
                free.addFirst(slot);
                return -1;
            }
            return slot;
        }

        boolean remove(final Key key, final int slot)
        {
            final boolean removed = index.remove(key.hi(), key.lo(), slot);
            if (removed)
            {
                // The owner may reuse the slot at once: the index must not depend on the old contents.
                digests[1 + 3 * slot + 2] = ~key.hi();
                digests[1 + 3 * slot] = ~key.lo();
                free.add(slot);
            }
            return removed;
        }
    }

    /** The home bucket of a digest in an index of {@code buckets} buckets. */
    private static int homeBucket(final Key key, final int buckets)
    {
        return (int)Digest128Index.hash(key.hi(), key.lo()) & (buckets - 1);
    }

    /** Finds {@code count} digests whose home bucket is {@code bucket}. */
    private static List<Key> keysHomedAt(final int buckets, final int bucket, final int count, final long seed)
    {
        final List<Key> keys = new ArrayList<>();
        final Random random = new Random(seed);
        while (keys.size() < count)
        {
            final Key key = new Key(random.nextLong(), random.nextLong());
            if (homeBucket(key, buckets) == bucket)
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
    void shouldFindEveryDigestOfCollidingRunsThatWrapAroundTheTableWhileTheyAreRemovedInAnyOrder()
    {
        // capacity 16 -> 32 buckets; runs homed at the last bucket wrap into the first ones and merge with theirs
        for (long seed = 1; seed <= 20; seed++)
        {
            final Owner owner = new Owner(16);
            final List<Key> keys = new ArrayList<>();
            keys.addAll(keysHomedAt(32, 31, 6, seed));
            keys.addAll(keysHomedAt(32, 0, 3, seed + 100));
            keys.addAll(keysHomedAt(32, 2, 3, seed + 200));
            keys.addAll(keysHomedAt(32, 29, 2, seed + 300));
            final Map<Key, Integer> expected = new HashMap<>();
            for (final Key key : keys)
            {
                final int slot = owner.put(key);
                assertTrue(slot >= 0);
                expected.put(key, slot);
            }
            assertIndexed(owner.index, expected, List.of());

            final List<Key> order = new ArrayList<>(keys);
            java.util.Collections.shuffle(order, new Random(seed));
            final List<Key> removed = new ArrayList<>();
            for (final Key key : order)
            {
                assertTrue(owner.remove(key, expected.remove(key)));
                removed.add(key);
                assertIndexed(owner.index, expected, removed);
            }
        }
    }

    @Test
    void shouldTellApartDigestsWhoseHashesAreEqual()
    {
        // hash(hi, lo) mixes hi * C ^ lo: equal pre-mix values give equal hashes, so equal tags and homes.
        final long c = 0x9E3779B97F4A7C15L;
        final long premix = 0x1234_5678_9ABC_DEF0L;
        final Key a = new Key(1, premix ^ c);
        final Key b = new Key(2, premix ^ (2 * c));
        final Key absent = new Key(3, premix ^ (3 * c));
        assertEquals(Digest128Index.hash(a.hi(), a.lo()), Digest128Index.hash(b.hi(), b.lo()));
        assertEquals(Digest128Index.hash(a.hi(), a.lo()), Digest128Index.hash(absent.hi(), absent.lo()));
        final Owner owner = new Owner(8);
        final int slotA = owner.put(a);
        final int slotB = owner.put(b);

        assertEquals(slotA, owner.index.get(a.hi(), a.lo()));
        assertEquals(slotB, owner.index.get(b.hi(), b.lo()));
        assertEquals(Digest128Index.MISSING, owner.index.get(absent.hi(), absent.lo()));
        assertFalse(owner.index.remove(a.hi(), a.lo(), 7), "removal matches the value, not only the hash");
        assertTrue(owner.remove(a, slotA));
        assertEquals(slotB, owner.index.get(b.hi(), b.lo()));
        assertEquals(Digest128Index.MISSING, owner.index.get(a.hi(), a.lo()));
    }

    @Test
    void shouldRefusePutBeyondCapacity()
    {
        final long[] digests = new long[30];
        final Digest128Index full = new Digest128Index(3, digests, 0, 2, 0, 1);
        for (int i = 0; i < 3; i++)
        {
            digests[2 * i] = i;
            digests[2 * i + 1] = i;
            assertTrue(full.put(i, i, i));
        }

        assertFalse(full.put(9, 9, 2), "a full index stores nothing");
        assertEquals(3, full.size());
        assertEquals(Digest128Index.MISSING, full.get(9, 9));
        assertTrue(full.remove(0, 0, 0));
        digests[0] = 9;
        digests[1] = 9;
        assertTrue(full.put(9, 9, 0));
        assertEquals(0, full.get(9, 9));
    }

    @Test
    void shouldTellDigestsApartThatShareOneHalf()
    {
        final Owner owner = new Owner(8);
        final int a = owner.put(new Key(1, 2));
        final int b = owner.put(new Key(1, 3));
        final int c = owner.put(new Key(2, 2));

        assertEquals(a, owner.index.get(1, 2));
        assertEquals(b, owner.index.get(1, 3));
        assertEquals(c, owner.index.get(2, 2));
        assertEquals(Digest128Index.MISSING, owner.index.get(2, 3));
    }

    @Test
    void shouldRejectADigestAlreadyIndexedAValueOutOfRangeAndABadLayout()
    {
        final Owner owner = new Owner(8);
        final int slot = owner.put(new Key(1, 2));

        assertThrows(IllegalStateException.class, () -> owner.put(new Key(1, 2)));
        assertThrows(IllegalArgumentException.class, () -> owner.index.put(3, 4, -1));
        assertThrows(IllegalArgumentException.class, () -> owner.index.put(3, 4, 8));
        assertThrows(IllegalArgumentException.class, () -> new Digest128Index(8, new long[15], 0, 2, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> new Digest128Index(8, new long[16], 0, 2, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new Digest128Index(Digest128Index.CAPACITY_MAX + 1, new long[0], 0, 2, 0, 1));
        assertEquals(slot, owner.index.get(1, 2));
    }

    @Test
    void shouldForgetEverythingOnClear()
    {
        final Owner owner = new Owner(8);
        owner.put(new Key(1, 2));
        owner.index.clear();

        assertEquals(0, owner.index.size());
        assertEquals(Digest128Index.MISSING, owner.index.get(1, 2));
        assertTrue(owner.index.put(1, 2, 0));
    }

    /** One step against the index and a HashMap: 0 put, 1 remove, 2 get. */
    record Op(int kind, Key key)
    {
    }

    @Provide
    Arbitrary<List<Op>> operations()
    {
        // A small universe of digests, some sharing a half, so that puts meet present keys and removes hit.
        final Arbitrary<Key> keys = Combinators.combine(Arbitraries.longs().between(0, 5), Arbitraries.longs().between(0, 7))
            .as((hi, lo) -> new Key(hi * 0x9E3779B97F4A7C15L, lo));
        final Arbitrary<Op> op = Combinators.combine(Arbitraries.integers().between(0, 2), keys).as(Op::new);
        return op.list().ofMinSize(1).ofMaxSize(300);
    }

    @Property(tries = 300)
    void shouldBehaveLikeHashMapBoundedByCapacity(@ForAll("operations") final List<Op> ops)
    {
        final int capacity = 12;
        final Owner owner = new Owner(capacity);
        final Map<Key, Integer> model = new HashMap<>();
        for (final Op op : ops)
        {
            final Key k = op.key();
            switch (op.kind())
            {
                case 0:
                    if (model.containsKey(k))
                    {
                        break; // the owners look a digest up before they put it
                    }
                    final int slot = owner.put(k);
                    assertEquals(model.size() < capacity, slot >= 0);
                    if (slot >= 0)
                    {
                        model.put(k, slot);
                    }
                    break;
                case 1:
                    final Integer removed = model.remove(k);
                    if (removed != null)
                    {
                        assertTrue(owner.remove(k, removed));
                    }
                    break;
                default:
                    final Integer value = model.get(k);
                    assertEquals(value == null ? Digest128Index.MISSING : value, owner.index.get(k.hi(), k.lo()));
            }
            assertEquals(model.size(), owner.index.size());
        }
        model.forEach((k, v) -> assertEquals(v, owner.index.get(k.hi(), k.lo())));
    }
}
