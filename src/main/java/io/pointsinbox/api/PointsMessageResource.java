package io.pointsinbox.api;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

import jakarta.transaction.Transactional;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import io.pointsinbox.config.PointsConfig;
import io.pointsinbox.inbox.InboxOutcome;
import io.pointsinbox.messaging.EnvelopeReader;
import io.pointsinbox.messaging.InvalidEnvelopeException;
import io.pointsinbox.messaging.MessageType;
import io.pointsinbox.messaging.PointsEnvelope;
import io.pointsinbox.points.PointsMessageHandler;
import io.pointsinbox.points.ProcessingResult;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * HTTP ingress for the same messages as the AMQP address, through the same inbox and consumer name. A retried
 * request gets the same status code as the first one: a duplicate of a rejected redemption is still a 422.
 */
@Path("/messages")
@Consumes(MediaType.APPLICATION_JSON)
@Produces(MediaType.APPLICATION_JSON)
public class PointsMessageResource {

    /** Larger bodies are refused with 413 before parsing; an envelope is a few hundred bytes. */
    static final int MAX_BODY_CHARS = 16 * 1024;

    private final EnvelopeReader reader;
    private final PointsMessageHandler handler;
    private final PointsConfig config;

    PointsMessageResource(EnvelopeReader reader, PointsMessageHandler handler, PointsConfig config) {
        this.reader = reader;
        this.handler = handler;
        this.config = config;
    }

    /** The outcome of one POST as the sender sees it; {@code outcome} is the first delivery's for a duplicate. */
    @RegisterForReflection
    public record Accepted(String status, UUID messageId, String outcome) {
    }

    @POST
    @Path("/points-granted")
    @Transactional
    public Response pointsGranted(String body) {
        return deliver(body, MessageType.POINTS_GRANTED);
    }

    @POST
    @Path("/points-redeemed")
    @Transactional
    public Response pointsRedeemed(String body) {
        return deliver(body, MessageType.POINTS_REDEEMED);
    }

    private Response deliver(String body, MessageType expected) {
        if (body == null || body.isEmpty()) {
            throw new InvalidEnvelopeException("body", "missing");
        }
        if (body.length() > MAX_BODY_CHARS) {
            return ApiError.response(Response.Status.REQUEST_ENTITY_TOO_LARGE, "body_too_large", "body",
                    "body: at most " + MAX_BODY_CHARS + " characters");
        }
        PointsEnvelope envelope = reader.read(body.getBytes(StandardCharsets.UTF_8), null);
        if (envelope.type() != expected) {
            throw new InvalidEnvelopeException("type", "this endpoint takes " + expected.wireName() + ", got "
                    + envelope.type().wireName());
        }
        ProcessingResult result = handler.handle(config.consumer(), envelope);
        return switch (result.status()) {
            case FIRST_DELIVERY -> answer(result.outcome().code(), result);
            case DUPLICATE_IGNORED -> answer("duplicate_ignored", result);
            case ID_CONFLICT -> ApiError.response(Response.Status.CONFLICT, "id_conflict", "messageId",
                    "messageId: " + result.messageId() + " was already used for a different message; not applied");
        };
    }

    private static Response answer(String status, ProcessingResult result) {
        String outcome = result.outcome() == null ? null : result.outcome().code();
        int code = result.outcome() == InboxOutcome.REJECTED_INSUFFICIENT_BALANCE ? 422 : 200;
        return Response.status(code).entity(new Accepted(status, result.messageId(), outcome)).build();
    }
}
