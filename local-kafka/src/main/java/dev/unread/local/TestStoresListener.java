package dev.unread.local;

import dev.unread.contract.Settings;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * The Redis and the MariaDB every test run needs, at the addresses the tests name, the settings'
 * defaults (127.0.0.1:6379, and 127.0.0.1:3306 with root without a password and a database {@code
 * test}): those of the machine where they answer, as on CI, else a Redis and a MariaDB of this
 * JVM's own on those ports ({@link LocalStores}), so that {@code mvn verify} needs nothing but Java
 * and Maven. Registered in each module's {@code src/test/resources/META-INF/services}, it opens
 * before the first test of a test JVM and closes after its last, stopping what it started and
 * deleting its data.
 */
public final class TestStoresListener implements LauncherSessionListener {

    private LocalStores stores;

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        try {
            // The settings' defaults, which tests that configure nothing (and the tests' stores,
            // on the same server) rely on: the database of the default URL too.
            stores =
                    LocalStores.start(
                            Settings.REDIS_URL.defaultValue(),
                            Settings.JDBC_URL.defaultValue(),
                            Settings.JDBC_USER.defaultValue(),
                            "");
        } catch (Exception e) {
            throw new IllegalStateException(
                    "nothing answers at 127.0.0.1:6379 or 127.0.0.1:3306, and starting a Redis"
                            + " or a MariaDB there failed",
                    e);
        }
        if (!stores.started().isEmpty()) {
            // Said once per test JVM, so that a run on a bare machine says what it ran against.
            System.err.println(
                    "Nothing answered at 127.0.0.1:6379 or :3306; the tests use "
                            + stores.started()
                            + " of their own");
        }
    }

    @Override
    public void launcherSessionClosed(LauncherSession session) {
        if (stores != null) {
            stores.close();
        }
    }
}
