package dev.unread.api;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;
import org.apache.logging.log4j.core.layout.PatternLayout;

/**
 * The bytes the API's logging writes while attached, as the shipped configuration writes them (its
 * levels, with each event's whole stack trace), counted by logger: an appender beside the others on
 * every logger of the running configuration.
 */
final class LogBytes extends AbstractAppender implements AutoCloseable {

    private final AtomicLong bytes = new AtomicLong();
    private final Map<String, Long> byLogger = new TreeMap<>();
    private final Configuration configuration;

    private LogBytes(Configuration configuration) {
        super(
                "log-bytes",
                null,
                PatternLayout.newBuilder()
                        .withPattern("%d{ISO8601} %-5level %c{1} - %msg%n%throwable")
                        .build(),
                true,
                Property.EMPTY_ARRAY);
        this.configuration = configuration;
    }

    static LogBytes attach() {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        LogBytes appender = new LogBytes(context.getConfiguration());
        appender.start();
        appender.configuration.getRootLogger().addAppender(appender, null, null);
        for (LoggerConfig logger : appender.configuration.getLoggers().values()) {
            if (!logger.isAdditive()) {
                // An additive logger's events reach the root's appenders anyway.
                logger.addAppender(appender, null, null);
            }
        }
        return appender;
    }

    @Override
    public void append(LogEvent event) {
        int n =
                getLayout()
                        .toSerializable(event)
                        .toString()
                        .getBytes(StandardCharsets.UTF_8)
                        .length;
        bytes.addAndGet(n);
        synchronized (byLogger) {
            byLogger.merge(event.getLoggerName(), (long) n, Long::sum);
        }
    }

    long bytes() {
        return bytes.get();
    }

    Map<String, Long> byLogger() {
        synchronized (byLogger) {
            return new TreeMap<>(byLogger);
        }
    }

    @Override
    public void close() {
        configuration.getRootLogger().removeAppender(getName());
        for (LoggerConfig logger : configuration.getLoggers().values()) {
            logger.removeAppender(getName());
        }
        stop();
    }
}
