package dev.tally.gateway.api.routing;

import dev.tally.gateway.api.problem.Problem;

/**
 * What {@link Router#match} found for one request: a route with its path parameter and query string, or
 * a problem (404 unknown path, 405 known path with another method). Mutable and reused per I/O thread:
 * valid until the next {@code match} into it.
 */
public final class RouteMatch
{
    private Route route;
    private String pathId;
    private String query;
    private String allow;
    private Problem problem;

    /** @return the matched route, or {@code null} when {@link #problem()} is set. */
    public Route route()
    {
        return route;
    }

    /** @return the raw {@code {id}} segment of the path (not yet validated), or {@code null} when the route has none. */
    public String pathId()
    {
        return pathId;
    }

    /** @return the raw query string after {@code ?} (not decoded), or {@code null} when there is none. */
    public String query()
    {
        return query;
    }

    /** @return for a 405, the value of the {@code Allow} header to send; otherwise {@code null}. */
    public String allow()
    {
        return allow;
    }

    /** @return the 404 or 405 problem when no route matched, otherwise {@code null}. */
    public Problem problem()
    {
        return problem;
    }

    RouteMatch matched(final Route route, final String pathId, final String query)
    {
        this.route = route;
        this.pathId = pathId;
        this.query = query;
        this.allow = null;
        this.problem = null;
        return this;
    }

    RouteMatch failed(final Problem problem, final String allow)
    {
        this.route = null;
        this.pathId = null;
        this.query = null;
        this.allow = allow;
        this.problem = problem;
        return this;
    }
}
