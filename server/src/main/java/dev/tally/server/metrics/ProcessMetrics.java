package dev.tally.server.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;

/**
 * The JVM's and the process's meters (Micrometer's binders): heap and non-heap memory, buffer pools, GC pauses and
 * allocation, threads, classes, CPU, uptime and start time, open file descriptors. They describe the process, not a
 * server, so there is one set per process, bound once, in a registry of its own: every {@link TallyMetrics} appends
 * its text to its own, and the GC binder's notification listeners are registered once however many servers a JVM
 * (a test run) starts and stops. The names ({@code jvm_*}, {@code process_*}, {@code system_*}) never meet Tally's
 * ({@code tally_*}), so the two texts together are one valid exposition.
 *
 * <p>Micrometer's {@code process.cpu.time} counts nanoseconds ({@code process_cpu_time_ns_total}); it is replaced by
 * {@code process_cpu_seconds_total}, Prometheus's usual name, in seconds like every other time Tally exports.
 */
final class ProcessMetrics
{
    private static final double NS_PER_SECOND = 1e9;
    private static final PrometheusMeterRegistry REGISTRY = bind();

    private ProcessMetrics()
    {
    }

    /** @return the registry of the process's meters, bound on first use: call it when a server starts, so it sees the GCs from then on. */
    static PrometheusMeterRegistry registry()
    {
        return REGISTRY;
    }

    private static PrometheusMeterRegistry bind()
    {
        final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        registry.config().meterFilter(MeterFilter.denyNameStartsWith("process.cpu.time"));
        new JvmMemoryMetrics().bindTo(registry);
        new JvmGcMetrics().bindTo(registry);   // never closed: its listeners live as long as the process they watch
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
        final OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean cpu)
        {
            FunctionCounter.builder("process.cpu", cpu, bean -> Math.max(0, bean.getProcessCpuTime()) / NS_PER_SECOND).baseUnit("seconds")
                .description("CPU time the JVM process used, all threads").register(registry);
        }
        return registry;
    }
}
