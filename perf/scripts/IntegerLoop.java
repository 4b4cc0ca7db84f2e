/** A plain integer loop, run as a single-file program by machine-probe.sh: the CPU's speed without the kernel. */
public final class IntegerLoop
{
    public static void main(final String[] args)
    {
        final long startNs = System.nanoTime();
        long x = 0;
        for (long i = 0; i < 2_000_000_000L; i++)
        {
            x += i * 31 ^ (x >>> 3);
        }
        System.out.println("integer loop: 2,000,000,000 iterations in " + (System.nanoTime() - startNs) / 1_000_000 + " ms (" + x + ")");
    }
}
