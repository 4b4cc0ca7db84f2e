package dev.tally.perf.load;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;

/** {@code run}: load against a server that is already running on loopback. */
@CommandLine.Command(name = "run", mixinStandardHelpOptions = true,
    description = "Create and fund accounts, send load, check the ledger, print the figures. The server must already run on 127.0.0.1.")
final class RunCommand implements Callable<Integer>
{
    @CommandLine.Option(names = "--url", required = true, description = "The server, http://127.0.0.1:PORT (loopback only).")
    String url;

    @CommandLine.Option(names = "--api-key", required = true, description = "A bearer key the server accepts.")
    String apiKey;

    @CommandLine.Mixin
    LoadOptions load = new LoadOptions();

    @Override
    public Integer call() throws Exception
    {
        final Target target = Target.parse(url, apiKey).withTransport(load.transport);
        final List<ScenarioRun.Outcome> outcomes = new ArrayList<>();
        for (final LoadSpec spec : load.specs())
        {
            outcomes.add(ScenarioRun.run(spec, target, load.resultsDir(), "", System.out));
        }
        return LoadMain.summarise(outcomes, System.out);
    }
}
