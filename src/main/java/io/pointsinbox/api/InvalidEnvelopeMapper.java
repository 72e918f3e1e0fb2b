package io.pointsinbox.api;

import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import io.pointsinbox.config.PointsConfig;
import io.pointsinbox.messaging.InvalidEnvelopeException;
import io.pointsinbox.ops.InboxMetrics;

/** Maps an invalid message to 400 with the offending field named; nothing was stored. */
public class InvalidEnvelopeMapper {

    private final InboxMetrics metrics;
    private final PointsConfig config;

    InvalidEnvelopeMapper(InboxMetrics metrics, PointsConfig config) {
        this.metrics = metrics;
        this.config = config;
    }

    @ServerExceptionMapper
    public Response invalid(InvalidEnvelopeException e) {
        metrics.rejected(config.consumer());
        return Response.status(Response.Status.BAD_REQUEST)
                .type(MediaType.APPLICATION_JSON_TYPE)
                .entity(new ApiError("invalid_message", e.field(), e.getMessage()))
                .build();
    }
}
