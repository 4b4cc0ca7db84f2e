package dev.tally.ledger.holder;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Reflective helpers for the reusable holders ({@code Command}, {@code Result}): fill every mutable field with a
 * value that no fresh holder has, and compare holders field by field. Reflection on purpose: a field added later
 * is covered without anyone remembering to add it here.
 */
final class HolderFields
{
    private HolderFields()
    {
    }

    /**
     * Gives every mutable field of {@code holder} a value that differs from a fresh holder's and, for two
     * different seeds, from each other's.
     */
    static <T> T fill(final T holder, final Supplier<T> fresh, final int seed) throws IllegalAccessException
    {
        final T defaults = fresh.get();
        int n = 0;
        for (final Field field : mutableFields(holder.getClass()))
        {
            n++;
            final Class<?> type = field.getType();
            if (type == long.class)
            {
                field.setLong(holder, field.getLong(defaults) + 1_000_003L * n + seed);
            }
            else if (type == int.class)
            {
                field.setInt(holder, field.getInt(defaults) + n + seed);
            }
            else if (type == boolean.class)
            {
                field.setBoolean(holder, !field.getBoolean(defaults));
            }
            else if (type.isEnum())
            {
                final Object[] constants = type.getEnumConstants();
                final List<Object> others = new ArrayList<>();
                for (final Object constant : constants)
                {
                    if (constant != field.get(defaults))
                    {
                        others.add(constant);
                    }
                }
                field.set(holder, others.get((n + seed) % others.size()));
            }
            else
            {
                throw new AssertionError("HolderFields does not know how to fill " + field);
            }
        }
        return holder;
    }

    /** @return the mutable fields whose values differ, with both values. */
    static List<String> differences(final Object a, final Object b) throws IllegalAccessException
    {
        final List<String> names = new ArrayList<>();
        for (final Field field : mutableFields(a.getClass()))
        {
            final Object x = field.get(a);
            final Object y = field.get(b);
            if (!Objects.equals(x, y))
            {
                names.add(field.getName() + " (" + x + " vs " + y + ")");
            }
        }
        return names;
    }

    private static List<Field> mutableFields(final Class<?> type)
    {
        final List<Field> fields = new ArrayList<>();
        for (final Field field : type.getDeclaredFields())
        {
            final int modifiers = field.getModifiers();
            if (!Modifier.isStatic(modifiers) && !Modifier.isFinal(modifiers))
            {
                field.setAccessible(true);
                fields.add(field);
            }
        }
        return fields;
    }
}
