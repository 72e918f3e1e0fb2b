package io.pointsinbox.support;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.jboss.logmanager.ExtLogRecord;

import io.pointsinbox.messaging.ConsoleLogFilter;

/**
 * The lines one logger publishes while the capture is open, each as "LEVEL message", the message formatted, and the
 * same lines with the log context (MDC) they were published in.
 */
public final class LogCapture implements AutoCloseable {

    private final Logger logger;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final List<Line> withContext = new CopyOnWriteArrayList<>();
    private final List<Runnable> restore = new ArrayList<>();
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            String text = ConsoleLogFilter.text(record);
            lines.add(record.getLevel() + " " + text);
            withContext.add(new Line(record.getLevel() + " " + text,
                    record instanceof ExtLogRecord ext ? Map.copyOf(ext.getMdcCopy()) : Map.of(), record.getThrown()));
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    private LogCapture(Logger logger) {
        this.logger = logger;
        logger.addHandler(handler);
    }

    /** Starts capturing what the logger named after {@code type} publishes. */
    public static LogCapture of(Class<?> type) {
        return of(type.getName());
    }

    /** Starts capturing what the logger of this category (and the categories under it) publishes. */
    public static LogCapture of(String category) {
        return new LogCapture(Logger.getLogger(category));
    }

    /** What was captured so far, in order; the list keeps growing while the capture is open. */
    public List<String> lines() {
        return lines;
    }

    /** Lets the logger named after {@code type} publish its DEBUG lines, until this capture is closed. */
    public LogCapture debugging(Class<?> type) {
        Logger debugged = Logger.getLogger(type.getName());
        Level before = debugged.getLevel();
        restore.add(() -> debugged.setLevel(before));
        debugged.setLevel(Level.FINE);
        return this;
    }

    /** What was captured so far with the log context and the exception of each line; it grows while open. */
    public List<Line> linesWithContext() {
        return withContext;
    }

    /** One captured line, its log context and the exception logged with it (null if none). */
    public record Line(String text, Map<String, String> context, Throwable thrown) {

        /** Whether the line is about this message: it names the id, or was logged in the message's context. */
        public boolean isAbout(java.util.UUID messageId) {
            return text.contains(messageId.toString()) || messageId.toString().equals(context.get("messageId"));
        }
    }

    @Override
    public void close() {
        logger.removeHandler(handler);
        restore.forEach(Runnable::run);
    }
}
