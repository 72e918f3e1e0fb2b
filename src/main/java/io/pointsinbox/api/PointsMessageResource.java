package io.pointsinbox.api;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.UUID;

import jakarta.transaction.Transactional;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import io.pointsinbox.config.PointsConfig;
import io.pointsinbox.messaging.EnvelopeReader;
import io.pointsinbox.points.PointsMessageHandler;
import io.pointsinbox.points.ProcessingResult;

/** HTTP ingress for the same messages as the AMQP address, through the same inbox and consumer name. */
@Path("/messages")
public class PointsMessageResource {

    private final EnvelopeReader reader;
    private final PointsMessageHandler handler;
    private final PointsConfig config;

    PointsMessageResource(EnvelopeReader reader, PointsMessageHandler handler, PointsConfig config) {
        this.reader = reader;
        this.handler = handler;
        this.config = config;
    }

    /** The outcome of one POST, as the sender sees it. */
    public record Accepted(String status, UUID messageId) {
    }

    @POST
    @Path("/points-granted")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    @Transactional
    public Accepted pointsGranted(String body) {
        ProcessingResult result = handler.handle(config.consumer(),
                reader.read(body.getBytes(StandardCharsets.UTF_8), null));
        return new Accepted(result.status().name().toLowerCase(Locale.ROOT), result.messageId());
    }
}
