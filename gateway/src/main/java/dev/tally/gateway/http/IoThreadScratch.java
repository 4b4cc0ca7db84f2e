package dev.tally.gateway.http;

import dev.tally.gateway.api.RequestDecoder;
import dev.tally.gateway.api.routing.ResourceId;
import dev.tally.gateway.api.ResponseRenderer;
import dev.tally.gateway.api.routing.RouteMatch;
import dev.tally.gateway.api.routing.Router;
import dev.tally.ledger.LedgerLimits;
import dev.tally.ledger.command.Command;
import io.netty.util.concurrent.FastThreadLocal;

/**
 * What one Netty I/O thread reuses for every request it decodes: the decoder (JSON parser, SHA-256),
 * a renderer for errors answered on the spot, the maker of request ids, and command holders for a single
 * request or a batch.
 * Per thread, not per connection: a batch's 8,190 holders are allocated once per I/O thread.
 */
final class IoThreadScratch
{
    private static final FastThreadLocal<IoThreadScratch> SCRATCH = new FastThreadLocal<>()
    {
        @Override
        protected IoThreadScratch initialValue()
        {
            return new IoThreadScratch();
        }
    };

    final Router router = new Router();
    final RouteMatch match = new RouteMatch();
    final RequestDecoder decoder = new RequestDecoder();
    final ResponseRenderer renderer = new ResponseRenderer();
    final ResourceId resourceId = new ResourceId();
    final RequestIds requestIds = new RequestIds();
    final Command single = new Command();
    final Command[] batch = new Command[LedgerLimits.BATCH_OPERATIONS_MAX];

    private IoThreadScratch()
    {
        for (int i = 0; i < batch.length; i++)
        {
            batch[i] = new Command();
        }
    }

    static IoThreadScratch get()
    {
        return SCRATCH.get();
    }
}
