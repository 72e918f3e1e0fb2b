package io.pointsinbox.messaging;

import java.util.function.Consumer;
import java.util.logging.Handler;
import java.util.logging.LogRecord;

/**
 * A log handler that only hands each record to a hook: how this service learns what a library tells only its log
 * ({@link UndecodableDeliveries}, {@link OversizedDeliveries}). The hook runs on the thread that logs.
 */
final class LogLineHook extends Handler {

    private final Consumer<LogRecord> hook;

    LogLineHook(Consumer<LogRecord> hook) {
        this.hook = hook;
    }

    @Override
    public void publish(LogRecord record) {
        hook.accept(record);
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
    }
}
