package dev.unread.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.testing.MySqlTestDatabase;
import dev.unread.testing.Poll;
import java.lang.ref.WeakReference;
import java.lang.reflect.Method;
import java.net.URL;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.util.FlinkUserCodeClassLoaders;
import org.apache.flink.util.MutableURLClassLoader;
import org.apache.flink.util.UserCodeClassLoader;
import org.junit.jupiter.api.Test;

/**
 * {@link MySqlDriverRelease} in a class loader built as a TaskManager builds one for a submitted
 * job ({@link FlinkUserCodeClassLoaders#create}: child-first, behind Flink's leak-checking
 * wrapper), over this module's classes and Connector/J, the two halves of the job jar that matter
 * here; and on the classpath, as in a MiniCluster or a cluster with the driver in its lib/.
 */
class MySqlDriverReleaseTest {

    private static final String DRIVER = "com.mysql.cj.jdbc.Driver";
    private static final Duration COLLECTED_TIMEOUT = Duration.ofSeconds(30);

    @Test
    void theJobsClassLoaderIsCollectedOnceReleasedAfterItsDriverConnected() throws Exception {
        WeakReference<ClassLoader> jobLoader = connectAndRelease();

        Poll.until(
                "the released job class loader garbage-collected",
                COLLECTED_TIMEOUT,
                () -> {
                    System.gc();
                    return jobLoader.get() == null ? true : null;
                });
    }

    @Test
    void aDriverOnTheClustersClassPathServesOtherJobsAndStaysRegistered() throws Exception {
        Class.forName(DRIVER);

        MySqlDriverRelease.release();

        assertThat(Collections.list(DriverManager.getDrivers()))
                .anyMatch(driver -> driver.getClass().getName().equals(DRIVER));
    }

    /**
     * Loads the driver in a job class loader, connects through it (which starts Connector/J's
     * cleanup thread and registers the driver with {@link DriverManager}), registers the hook as
     * the job's sink does, and releases the class loader as the TaskManager does when the job
     * stops. Returns the loader that defined the job's classes, referenced weakly only.
     */
    private static WeakReference<ClassLoader> connectAndRelease() throws Exception {
        URL[] jobJar = {location(MySqlDriverRelease.class), location(Class.forName(DRIVER))};
        MutableURLClassLoader loader =
                FlinkUserCodeClassLoaders.create(
                        jobJar, UserCodeClassLoader.class.getClassLoader(), new Configuration());
        Class<?> driverClass = Class.forName(DRIVER, true, loader);
        assertThat(driverClass.getClassLoader()).isNotSameAs(Driver.class.getClassLoader());

        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        Properties root = new Properties();
        root.put("user", "root");
        try (Connection connection =
                ((Driver) driverClass.getConstructor().newInstance())
                        .connect(MySqlTestDatabase.SERVER, root)) {
            assertThat(connection.isValid(1)).isTrue();
        } finally {
            thread.setContextClassLoader(previous);
        }

        Hooks hooks = new Hooks(loader);
        Method registerFor =
                Class.forName(MySqlDriverRelease.class.getName(), true, loader)
                        .getDeclaredMethod("registerFor", UserCodeClassLoader.class);
        registerFor.setAccessible(true);
        registerFor.invoke(null, hooks);
        registerFor.invoke(null, hooks);
        assertThat(hooks.hooks).hasSize(1);
        hooks.release();
        loader.close();
        return new WeakReference<>(driverClass.getClassLoader());
    }

    private static URL location(Class<?> type) {
        return type.getProtectionDomain().getCodeSource().getLocation();
    }

    /** What a TaskManager hands a sink: the job's class loader, wrapped, and its release hooks. */
    private static final class Hooks implements UserCodeClassLoader {
        private final ClassLoader loader;
        private final Map<String, Runnable> hooks = new LinkedHashMap<>();

        Hooks(ClassLoader loader) {
            this.loader = loader;
        }

        @Override
        public ClassLoader asClassLoader() {
            return loader;
        }

        @Override
        public void registerReleaseHookIfAbsent(String name, Runnable hook) {
            hooks.putIfAbsent(name, hook);
        }

        /** As Flink does: every hook once, then none kept. */
        void release() {
            hooks.values().forEach(Runnable::run);
            hooks.clear();
        }
    }
}
