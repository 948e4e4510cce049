package dev.unread;

import org.junit.platform.suite.api.SelectClasses;
import org.junit.platform.suite.api.Suite;

/**
 * The two tests that start a real multi-process Flink cluster, one after the other in one test JVM,
 * with no other test beside them: devkit's pom runs this suite in a failsafe execution of its own,
 * after the other integration tests, which take two JVMs. Beside BenchITCase in a second JVM a
 * cluster test's waits ran out on a loaded machine.
 */
@Suite
@SelectClasses(
        names = {
            "dev.unread.cluster.FlinkClusterITCase",
            "dev.unread.cluster.FlinkClusterLeakITCase"
        })
class ClusterProcessesITCase {}
