package io.pointsinbox.messaging;

import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import io.pointsinbox.config.BatchConfig;
import io.pointsinbox.config.PointsConfig;
import io.pointsinbox.contract.PointsEnvelope;
import io.pointsinbox.points.PointsMessageHandler;
import io.pointsinbox.points.ProcessingResult;

/**
 * How the AMQP adapter applies a valid message, chosen once at start-up: in the delivery's own transaction (the
 * default), or handed to a batch transaction ({@code POINTS_BATCH_ENABLED=true}, {@link GrantBatcher}).
 */
@FunctionalInterface
public interface DeliveryPath {

    ProcessingResult apply(PointsEnvelope envelope);

    /** Produces the path the configuration asks for. */
    @Dependent
    final class Choice {

        @Produces
        @Singleton
        DeliveryPath path(BatchConfig batch, GrantBatcher batcher, PointsMessageHandler handler, PointsConfig config) {
            if (batch.enabled()) {
                // The delivery's transaction stays empty: the batch thread's commits the effect, then this returns.
                return batcher::apply;
            }
            String consumer = config.consumer();
            return envelope -> handler.handle(consumer, envelope);
        }
    }
}
