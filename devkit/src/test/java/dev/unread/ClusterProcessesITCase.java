package dev.unread;

import org.junit.platform.suite.api.SelectClasses;
import org.junit.platform.suite.api.Suite;

/**
 * The two tests that start a real multi-process Flink cluster, one after the other in one test JVM.
 * The integration tests run in two JVMs (devkit/pom.xml); a cluster test beside the other cluster
 * test timed out on a loaded machine, where beside any other test it has the second core to itself.
 * In the root package so that it sorts first and starts with the run: it is the longest part of it.
 */
@Suite
@SelectClasses(
        names = {
            "dev.unread.cluster.FlinkClusterITCase",
            "dev.unread.cluster.FlinkClusterLeakITCase"
        })
class ClusterProcessesITCase {}
