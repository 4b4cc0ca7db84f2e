package dev.tally.server.cli;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * POSIX signal handlers through {@code sun.misc.Signal} (module {@code jdk.unsupported}, supported for
 * exactly this use). Reached by reflection only because javac warns on every mention of that package and
 * the warning cannot be suppressed; the build treats warnings seriously. Where the API is missing (another
 * JVM), installing a handler is skipped with a warning, and the JVM's own handling stays.
 */
final class Signals
{
    private static final Logger LOG = LoggerFactory.getLogger(Signals.class);

    private Signals()
    {
    }

    /**
     * Runs {@code action} on the JVM's signal thread each time the signal arrives; replaces the JVM's
     * handling of it (for TERM and INT: no shutdown hooks unless {@code action} exits).
     *
     * @param name signal name without {@code SIG}: {@code HUP}, {@code TERM}, {@code INT}.
     * @return true when installed.
     */
    static boolean on(final String name, final Runnable action)
    {
        try
        {
            final Class<?> signalClass = Class.forName("sun.misc.Signal");
            final Class<?> handlerClass = Class.forName("sun.misc.SignalHandler");
            final Object signal = signalClass.getConstructor(String.class).newInstance(name);
            final Object handler = Proxy.newProxyInstance(Signals.class.getClassLoader(), new Class<?>[] {handlerClass},
                (proxy, method, args) ->
                {
                    if (method.getName().equals("handle"))
                    {
                        action.run();
                        return null;
                    }
                    return method.getDeclaringClass() == Object.class ? objectMethod(proxy, method, args) : null;
                });
            final Method handle = signalClass.getMethod("handle", signalClass, handlerClass);
            handle.invoke(null, signal, handler);
            return true;
        }
        catch (final ReflectiveOperationException | IllegalArgumentException ex)
        {
            final Throwable cause = ex instanceof InvocationTargetException ? ex.getCause() : ex;
            LOG.warn("cannot handle SIG{} ({}); the JVM's default applies", name, cause.toString());
            return false;
        }
    }

    private static Object objectMethod(final Object proxy, final Method method, final Object[] args)
    {
        switch (method.getName())
        {
            case "equals":
                return proxy == args[0];
            case "hashCode":
                return System.identityHashCode(proxy);
            default:
                return "SignalHandler@" + Integer.toHexString(System.identityHashCode(proxy));
        }
    }
}
