package dev.unread.sinks;

import com.mysql.cj.jdbc.AbandonedConnectionCleanupThread;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Collections;
import org.apache.flink.util.UserCodeClassLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets go of MySQL Connector/J when Flink releases the job's class loader, so that a stopped job
 * leaves nothing behind on a TaskManager that runs for months.
 *
 * <p>The driver ships in the job jar and so loads in the job's class loader, and two things outside
 * it keep that class loader alive once the job has stopped: the driver's {@code
 * mysql-cj-abandoned-connection-cleanup} thread, which runs until told to stop, and {@link
 * DriverManager}'s list of registered drivers, a JDK class that outlives every job. Flink's
 * guidance on user-code class loading is to undo both in a release hook; Flink runs the hooks of a
 * class loader when the TaskManager drops it, after the job's last task has ended.
 */
final class MySqlDriverRelease {

    private static final String HOOK = "unread-mysql-connector-j";
    private static final Logger LOG = LoggerFactory.getLogger(MySqlDriverRelease.class);

    private MySqlDriverRelease() {}

    /** Registers the hook once per class loader, however many writers open in it. */
    static void registerFor(UserCodeClassLoader classLoader) {
        classLoader.registerReleaseHookIfAbsent(HOOK, MySqlDriverRelease::release);
    }

    /**
     * Stops the cleanup thread and deregisters the drivers of the Connector/J this class was linked
     * against, if that copy came with the job. Not by comparing with the loader Flink hands out
     * ({@link UserCodeClassLoader#asClassLoader()}): on a cluster that is a wrapper around the
     * job's class loader, never the loader that defined a class, so no driver ever matched it.
     */
    static void release() {
        ClassLoader driverLoader = AbandonedConnectionCleanupThread.class.getClassLoader();
        if (!shippedWithTheJob(driverLoader)) {
            // A driver in the cluster's lib/ (or, in a MiniCluster, on the classpath) serves every
            // job and outlives this one.
            return;
        }
        // Not checkedShutdown(): it does nothing unless the calling thread's context class loader
        // is the driver's, and Flink runs the hook on one of its own threads.
        AbandonedConnectionCleanupThread.uncheckedShutdown();
        for (Driver driver : Collections.list(DriverManager.getDrivers())) {
            if (driver.getClass().getClassLoader() == driverLoader) {
                try {
                    DriverManager.deregisterDriver(driver);
                } catch (SQLException e) {
                    LOG.warn("Could not deregister the JDBC driver {}", driver, e);
                }
            }
        }
    }

    /** Whether {@code loader} is the job's own: neither Flink's loader nor one of its parents. */
    static boolean shippedWithTheJob(ClassLoader loader) {
        for (ClassLoader cluster = UserCodeClassLoader.class.getClassLoader();
                cluster != null;
                cluster = cluster.getParent()) {
            if (cluster == loader) {
                return false;
            }
        }
        return loader != null;
    }
}
