package dev.tally.server.cli;

import java.io.PrintWriter;
import picocli.CommandLine;

/**
 * What {@code tally} prints for an invalid flag, value or setting: the error on one line, picocli's suggestion for a
 * mistyped option or command when it has one, then {@code try 'tally <command> --help'}. The full usage, forty lines
 * and more, is for {@code --help}: after an error it pushes the one line that matters off the screen.
 */
final class FlagErrorHandler implements CommandLine.IParameterExceptionHandler
{
    @Override
    public int handleParseException(final CommandLine.ParameterException ex, final String[] args)
    {
        final CommandLine command = ex.getCommandLine();
        final PrintWriter err = command.getErr();
        err.println(command.getColorScheme().errorText(command.getCommandSpec().qualifiedName() + ": " + ex.getMessage()));
        CommandLine.UnmatchedArgumentException.printSuggestions(ex, err);
        err.println("try '" + command.getCommandSpec().qualifiedName() + " --help'");
        err.flush();
        return command.getExitCodeExceptionMapper() != null
            ? command.getExitCodeExceptionMapper().getExitCode(ex)
            : command.getCommandSpec().exitCodeOnInvalidInput();
    }
}
