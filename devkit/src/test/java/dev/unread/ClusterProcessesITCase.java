package dev.unread;

import org.junit.platform.suite.api.SelectClasses;
import org.junit.platform.suite.api.Suite;

/**
 * The two tests that start a real multi-process Flink cluster, one after the other in one test JVM.
 * The integration tests run in two JVMs (the root pom), and a cluster test in two JVMs has timed
 * out on a loaded machine: the two clusters' processes never share the cores with each other. In
 * the root package so that it sorts first and starts with the run: it is the longest part of it.
 */
@Suite
@SelectClasses(
        names = {
            "dev.unread.cluster.FlinkClusterITCase",
            "dev.unread.cluster.FlinkClusterLeakITCase"
        })
class ClusterProcessesITCase {}
