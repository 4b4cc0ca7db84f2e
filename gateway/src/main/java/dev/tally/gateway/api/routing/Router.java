package dev.tally.gateway.api.routing;

import dev.tally.gateway.api.problem.Problem;
import dev.tally.gateway.api.problem.ProblemType;

/**
 * Matches an HTTP method and request target to a {@link Route}.
 *
 * <p>Matching is exact and segment by segment: no trailing slash, no empty segment, no percent-decoding
 * (ids are digits or UUIDs, so an encoded id cannot name anything). The {@code {id}} segment is taken as
 * raw text; whether it names a resource is decided later (see {@link ResourceId}). A path that matches a
 * template under another method is a 405 with an {@code Allow} value; any other path is a 404.
 *
 * <p>Stateless and thread-safe. Allocates only the id and query substrings of a successful match and the
 * problem of a failed one.
 */
public final class Router
{
    private static final Route[] ROUTES = Route.values();
    private static final long NO_MATCH = -1;

    /**
     * @param method the request method, upper case as sent ({@code GET}, {@code POST}, ...).
     * @param uri    the request target: an origin-form path, optionally followed by {@code ?query}.
     * @param out    receives the route, or the problem.
     * @return true when a route matched; otherwise {@code out.problem()} is a 404 or 405.
     */
    public boolean match(final String method, final String uri, final RouteMatch out)
    {
        final int queryStart = uri.indexOf('?');
        final int pathEnd = queryStart < 0 ? uri.length() : queryStart;
        final String query = queryStart < 0 ? null : uri.substring(queryStart + 1);
        String allow = null;
        if (pathEnd > 0 && uri.charAt(0) == '/')
        {
            for (final Route route : ROUTES)
            {
                final long id = matchPath(uri, pathEnd, route.segments());
                if (id == NO_MATCH)
                {
                    continue;
                }
                if (route.method().equals(method))
                {
                    final int idStart = (int)(id >>> 32);
                    final String pathId = idStart == 0 ? null : uri.substring(idStart, (int)id);
                    out.matched(route, pathId, query);
                    return true;
                }
                allow = allow == null ? route.method() : allow + ", " + route.method();
            }
        }
        final String path = uri.substring(0, pathEnd);
        if (allow != null)
        {
            out.failed(new Problem(ProblemType.METHOD_NOT_ALLOWED, method + " is not allowed on " + path + "; use " + allow)
                .with("allow", allow), allow);
        }
        else
        {
            out.failed(new Problem(ProblemType.NOT_FOUND, "no resource at " + path), null);
        }
        return false;
    }

    /**
     * @return {@link #NO_MATCH}, or the bounds of the {@code {id}} segment packed as
     * {@code (start << 32) | end} (start 0 when the template has no id: position 0 is always the '/').
     */
    private static long matchPath(final String uri, final int pathEnd, final String[] segments)
    {
        int position = 1;
        long id = 0;
        for (int s = 0; s < segments.length; s++)
        {
            int end = uri.indexOf('/', position);
            if (end < 0 || end > pathEnd)
            {
                end = pathEnd;
            }
            final String segment = segments[s];
            if (Route.ID_PLACEHOLDER.equals(segment))
            {
                if (end == position)
                {
                    return NO_MATCH;
                }
                id = ((long)position << 32) | end;
            }
            else if (end - position != segment.length() || !uri.regionMatches(position, segment, 0, segment.length()))
            {
                return NO_MATCH;
            }
            final boolean lastSegment = s == segments.length - 1;
            if (lastSegment != (end == pathEnd))
            {
                return NO_MATCH;
            }
            position = end + 1;
        }
        return id;
    }
}
