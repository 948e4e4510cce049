package dev.unread.bench;

import java.lang.management.ManagementFactory;

/**
 * CPU time of this process, all threads: what the bench divides messages by to compare designs per
 * core rather than per wall-clock second on a machine other work shares.
 */
final class CpuTime {

    private CpuTime() {}

    /** Nanoseconds of CPU this JVM has used since it started. */
    static long process() {
        return ((com.sun.management.OperatingSystemMXBean)
                        ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }
}
