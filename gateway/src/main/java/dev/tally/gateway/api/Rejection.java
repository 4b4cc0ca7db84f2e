package dev.tally.gateway.api;

import dev.tally.gateway.api.problem.Problem;
import dev.tally.gateway.api.problem.ProblemType;

/**
 * Unwinds the recursive-descent request parse at the first invalid value, carrying the {@link Problem}
 * to answer. Stackless (built only on the error path, caught by {@link RequestDecoder} before it returns):
 * it is control flow inside the decoder, never visible outside it.
 */
final class Rejection extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    private final transient Problem problem;

    Rejection(final Problem problem)
    {
        super(problem.detail(), null, false, false);
        this.problem = problem;
    }

    Problem problem()
    {
        return problem;
    }

    /**
     * A problem about one field.
     *
     * @param operationIndex the batch operation, or -1 for a single request.
     * @param path           the field's path inside the request or the operation, e.g. {@code body.amount}.
     * @param complaint      what is wrong, completing the sentence "{@code <path> ...}".
     */
    static Rejection field(final ProblemType type, final int operationIndex, final String path, final String complaint)
    {
        final String fullPath = operationIndex < 0 ? path : "operations[" + operationIndex + "]." + path;
        Problem problem = new Problem(type, fullPath + " " + complaint).with("field", fullPath);
        if (operationIndex >= 0)
        {
            problem = problem.with("operationIndex", operationIndex);
        }
        return new Rejection(problem);
    }

    /** A problem about the request as a whole, or one operation of a batch when {@code operationIndex >= 0}. */
    static Rejection of(final ProblemType type, final int operationIndex, final String detail)
    {
        Problem problem = new Problem(type, operationIndex < 0 ? detail : "operations[" + operationIndex + "]: " + detail);
        if (operationIndex >= 0)
        {
            problem = problem.with("operationIndex", operationIndex);
        }
        return new Rejection(problem);
    }
}
