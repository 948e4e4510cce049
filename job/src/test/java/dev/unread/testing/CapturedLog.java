package dev.unread.testing;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.Appender;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * Every log line of this JVM at INFO and above, with the messages of the exceptions logged with
 * them, from {@link #start()} to {@link #close()}: what an operator would see in the job's or the
 * API's log, for tests that check what must never be in it. The appenders already configured keep
 * getting what they got before.
 */
public final class CapturedLog implements AutoCloseable {

    private static final String NAME = "captured-log";

    private final StringBuffer text = new StringBuffer();
    private final LoggerContext context;
    private final Level rootLevel;
    private final Map<String, Appender> others;
    private final Appender appender;

    private CapturedLog() {
        context = (LoggerContext) LogManager.getContext(false);
        LoggerConfig root = context.getConfiguration().getRootLogger();
        rootLevel = root.getLevel();
        others = root.getAppenders();
        appender =
                new AbstractAppender(NAME, null, null, true, Property.EMPTY_ARRAY) {
                    @Override
                    public void append(LogEvent event) {
                        text.append(event.getLevel())
                                .append(' ')
                                .append(event.getLoggerName())
                                .append(" - ")
                                .append(event.getMessage().getFormattedMessage())
                                .append('\n');
                        if (event.getThrown() != null) {
                            StringWriter trace = new StringWriter();
                            event.getThrown().printStackTrace(new PrintWriter(trace));
                            text.append(trace).append('\n');
                        }
                    }
                };
        appender.start();
        // The root at INFO for this appender; the others keep their former threshold.
        others.values()
                .forEach(
                        a -> {
                            root.removeAppender(a.getName());
                            root.addAppender(a, rootLevel, null);
                        });
        root.addAppender(appender, Level.INFO, null);
        if (rootLevel.isMoreSpecificThan(Level.INFO)) {
            root.setLevel(Level.INFO);
        }
        context.updateLoggers();
    }

    public static CapturedLog start() {
        return new CapturedLog();
    }

    /** Everything captured so far. */
    public String text() {
        return text.toString();
    }

    @Override
    public void close() {
        LoggerConfig root = context.getConfiguration().getRootLogger();
        root.removeAppender(NAME);
        others.values()
                .forEach(
                        a -> {
                            root.removeAppender(a.getName());
                            root.addAppender(a, null, null);
                        });
        root.setLevel(rootLevel);
        context.updateLoggers();
        appender.stop();
    }
}
