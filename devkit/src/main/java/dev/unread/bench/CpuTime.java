package dev.unread.bench;

import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time of this process, all threads: what the bench divides messages by to compare designs per
 * core rather than per wall-clock second on a machine other work shares. Beside it, the machine's
 * steal time: on a virtual machine the host may give a share of the cores to other guests, and a
 * run's rate falls with it while its CPU per message does not.
 */
final class CpuTime {

    private static final Path PROC_STAT = Path.of("/proc/stat");

    private CpuTime() {}

    /**
     * Milliseconds this JVM's JIT compiler threads have spent compiling since it started, summed
     * over the threads: a run that meets code not yet compiled pays for it in its CPU, a cost of
     * the run rather than of each message; 0 where the JVM does not tell.
     */
    static long compilingMillis() {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported()
                ? jit.getTotalCompilationTime()
                : 0;
    }

    /**
     * This process's CPU, the JIT's compiling and the machine's ticks at one moment: a run's span
     * is the difference of two.
     */
    record Sample(long processNanos, long compilingMillis, Machine machine) {
        static Sample now() {
            return new Sample(process(), CpuTime.compilingMillis(), Machine.now());
        }
    }

    /** Nanoseconds of CPU this JVM has used since it started. */
    static long process() {
        return ((com.sun.management.OperatingSystemMXBean)
                        ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /**
     * The machine's CPU time over all cores and the part of it stolen, in /proc/stat's ticks since
     * boot; zeros where there is no /proc/stat.
     */
    record Machine(long ticks, long stolenTicks) {

        static Machine now() {
            try {
                // cpu user nice system idle iowait irq softirq steal guest guest_nice
                String[] fields = Files.readAllLines(PROC_STAT).get(0).trim().split("\\s+");
                long ticks = 0;
                for (int i = 1; i <= 8 && i < fields.length; i++) {
                    ticks += Long.parseLong(fields[i]);
                }
                return new Machine(ticks, fields.length > 8 ? Long.parseLong(fields[8]) : 0);
            } catch (IOException | RuntimeException e) {
                return new Machine(0, 0);
            }
        }

        /** The share of the machine's time since {@code before} that was stolen: 0 to 1. */
        double stolenSince(Machine before) {
            long ticks = this.ticks - before.ticks;
            return ticks <= 0 ? 0 : (double) (stolenTicks - before.stolenTicks) / ticks;
        }
    }
}
