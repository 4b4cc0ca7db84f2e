package dev.tally.perf.load;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code bench} runs a Tally server in this JVM, and Chronicle Queue needs some JDK internals opened on
 * JDK 17+ ({@code tally.jar}'s manifest carries them; a plain {@code java -cp benchmarks.jar} does not).
 * When they are missing, the command runs itself again in a child JVM with them added, with the same
 * JVM options (heap, JFR...) and arguments, and exits with the child's status.
 */
final class ChronicleOpens
{
    /** The same list as {@code tally.jvm.opens} in the parent pom and the Add-Opens of tally.jar. */
    private static final String[] FLAGS = {
        "--add-opens=java.base/java.lang=ALL-UNNAMED",
        "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
        "--add-opens=java.base/java.nio=ALL-UNNAMED",
        "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED",
        "--add-opens=java.base/java.io=ALL-UNNAMED",
        "--add-opens=java.base/java.util=ALL-UNNAMED",
        "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED",
        "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
        "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED",
    };

    private ChronicleOpens()
    {
    }

    /** @return true when this JVM already opens what Chronicle needs. */
    static boolean present()
    {
        final Module javaBase = Object.class.getModule();
        return javaBase.isOpen("sun.nio.ch", ChronicleOpens.class.getModule()) &&
            javaBase.isOpen("java.nio", ChronicleOpens.class.getModule());
    }

    /**
     * Runs {@code LoadMain args} again in a child JVM with the opens added.
     *
     * @return the child's exit status.
     */
    static int relaunch(final String[] args) throws Exception
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of(FLAGS));
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        command.add("-Dchronicle.analytics.disable=true");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(LoadMain.class.getName());
        command.addAll(List.of(args));
        System.err.println("bench: this JVM lacks the --add-opens Chronicle Queue needs; running again with them");
        return new ProcessBuilder(command).inheritIO().start().waitFor();
    }
}
