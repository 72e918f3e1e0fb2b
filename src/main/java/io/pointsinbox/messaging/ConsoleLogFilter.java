package io.pointsinbox.messaging;

import java.util.logging.Filter;
import java.util.logging.LogRecord;

import org.jboss.logmanager.ExtFormatter;
import org.jboss.logmanager.ExtLogRecord;

import io.quarkus.logging.LoggingFilter;

/**
 * The console's filter ({@code quarkus.log.console.filter}; a handler takes one): what the libraries report of an
 * event the service recovers from by itself becomes one WARN line naming it, with no stack trace, and everything
 * else passes unchanged. The broker's side is {@link BrokerDisconnectLogFilter}, the database's side
 * {@link DeliveryFailureLogFilter}.
 */
@LoggingFilter(name = ConsoleLogFilter.NAME)
public final class ConsoleLogFilter implements Filter {

    public static final String NAME = "points-inbox";

    /** Formats a record's message as the handlers do (its parameters in place), without writing a line. */
    private static final ExtFormatter MESSAGE = new ExtFormatter() {
        @Override
        public String format(ExtLogRecord record) {
            return formatMessage(record);
        }
    };

    private final Filter broker = new BrokerDisconnectLogFilter();
    private final Filter deliveries = new DeliveryFailureLogFilter();

    @Override
    public boolean isLoggable(LogRecord record) {
        return broker.isLoggable(record) && deliveries.isLoggable(record);
    }

    /** The record's message with its parameters in place, whatever format style it was logged with. */
    public static String text(LogRecord record) {
        return MESSAGE.formatMessage(record);
    }

    /** Rewrites the record in place: the handlers after this filter see one WARN line and no stack trace. */
    static void oneWarningLine(LogRecord record, String text) {
        record.setLevel(org.jboss.logmanager.Level.WARN);
        oneLine(record, text);
    }

    /** Rewrites the record in place, keeping its level: the handlers after this filter see one line, no stack trace. */
    static void oneLine(LogRecord record, String text) {
        record.setThrown(null);
        record.setParameters(null);
        if (record instanceof ExtLogRecord ext) {
            ext.setMessage(text, ExtLogRecord.FormatStyle.NO_FORMAT);
        } else {
            record.setMessage(text);
        }
    }
}
