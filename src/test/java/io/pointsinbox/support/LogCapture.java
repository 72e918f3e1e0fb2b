package io.pointsinbox.support;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.jboss.logmanager.ExtLogRecord;

/** The lines one logger publishes while the capture is open, each as "LEVEL message", the message formatted. */
public final class LogCapture implements AutoCloseable {

    private final Logger logger;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            String text = record instanceof ExtLogRecord ext ? ext.getFormattedMessage() : record.getMessage();
            lines.add(record.getLevel() + " " + text);
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
        return new LogCapture(Logger.getLogger(type.getName()));
    }

    /** What was captured so far, in order; the list keeps growing while the capture is open. */
    public List<String> lines() {
        return lines;
    }

    @Override
    public void close() {
        logger.removeHandler(handler);
    }
}
