package io.pointsinbox.api;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

import jakarta.transaction.Transactional;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.ExampleObject;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;

import io.pointsinbox.config.PointsConfig;
import io.pointsinbox.inbox.InboxOutcome;
import io.pointsinbox.contract.ContentCodings;
import io.pointsinbox.contract.EnvelopeReader;
import io.pointsinbox.contract.InvalidEnvelopeException;
import io.pointsinbox.contract.MessageType;
import io.pointsinbox.contract.PointsEnvelope;
import io.pointsinbox.points.PointsMessageHandler;
import io.pointsinbox.points.ProcessingResult;
import io.quarkus.runtime.annotations.RegisterForReflection;

import org.jboss.logging.Logger;
import org.jboss.logging.MDC;

/**
 * HTTP ingress for the same messages as the AMQP address, through the same inbox and consumer name. A retried
 * request gets the same status code as the first one: a duplicate of a rejected redemption is still a 422.
 */
@Path("/messages")
// The refusals both operations share; each adds its own answers.
@SecurityRequirement(name = "bearer")
@APIResponse(responseCode = "400", ref = "InvalidMessage")
@APIResponse(responseCode = "401", ref = "Unauthorized")
@APIResponse(responseCode = "403", ref = "Forbidden")
@APIResponse(responseCode = "409", ref = "IdConflict")
@APIResponse(responseCode = "413", ref = "TooLarge")
@APIResponse(responseCode = "415", ref = "NotJson")
@APIResponse(responseCode = "503", ref = "DatabaseUnavailable")
@Consumes(MediaType.APPLICATION_JSON)
@Produces(MediaType.APPLICATION_JSON)
public class PointsMessageResource {

    private static final Logger LOG = Logger.getLogger(PointsMessageResource.class);

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
    @Operation(summary = "Grant points, exactly once in effect per message id",
            description = "Adds payload.amount to the user's balance and records a grant, in one transaction with the"
                    + " inbox row of (consumer, messageId). A retry of the same message answers what the first did.")
    @APIResponse(responseCode = "200", description = "processed, or duplicate_ignored with the first outcome",
            content = @Content(schema = @Schema(ref = "Accepted"), examples = {
                    @ExampleObject(name = "processed", value = "{\"status\":\"processed\",\"messageId\":"
                            + "\"9b4df7bf-25d4-4a1e-9f07-4cc6fbb4a3ad\",\"outcome\":\"processed\"}"),
                    @ExampleObject(name = "duplicate_ignored", value = "{\"status\":\"duplicate_ignored\","
                            + "\"messageId\":\"9b4df7bf-25d4-4a1e-9f07-4cc6fbb4a3ad\",\"outcome\":\"processed\"}") }))
    public Response pointsGranted(@RequestBody(required = true, content = @Content(
            schema = @Schema(ref = "Envelope"), examples = @ExampleObject(name = "grant",
                    value = "{\"messageId\":\"9b4df7bf-25d4-4a1e-9f07-4cc6fbb4a3ad\",\"type\":\"PointsGranted.v1\","
                            + "\"payload\":{\"userId\":123,\"amount\":100}}"))) byte[] body,
            @Context HttpHeaders headers) {
        return deliver(body, headers.getHeaderString(HttpHeaders.CONTENT_ENCODING), MessageType.POINTS_GRANTED);
    }

    @POST
    @Path("/points-redeemed")
    @Transactional
    @Operation(summary = "Redeem points, exactly once in effect per message id",
            description = "Takes payload.amount from the user's balance, never below zero. A redemption the balance"
                    + " cannot cover is recorded as rejected (422) and a retry answers the same, even if the balance"
                    + " could cover it by then.")
    @APIResponse(responseCode = "200", description = "processed, or duplicate_ignored with the first outcome",
            content = @Content(schema = @Schema(ref = "Accepted"), examples = @ExampleObject(name = "processed",
                    value = "{\"status\":\"processed\",\"messageId\":\"0c1b3c52-7f0e-4a55-9a43-2a1f2f8f3b10\","
                            + "\"outcome\":\"processed\"}")))
    @APIResponse(responseCode = "422", description = "rejected_insufficient_balance: recorded, never applied later",
            content = @Content(schema = @Schema(ref = "Accepted"), examples = @ExampleObject(
                    name = "rejected_insufficient_balance", value = "{\"status\":\"rejected_insufficient_balance\","
                            + "\"messageId\":\"0c1b3c52-7f0e-4a55-9a43-2a1f2f8f3b10\","
                            + "\"outcome\":\"rejected_insufficient_balance\"}")))
    public Response pointsRedeemed(@RequestBody(required = true, content = @Content(
            schema = @Schema(ref = "Envelope"), examples = @ExampleObject(name = "redemption",
                    value = "{\"messageId\":\"0c1b3c52-7f0e-4a55-9a43-2a1f2f8f3b10\",\"type\":\"PointsRedeemed.v1\","
                            + "\"payload\":{\"userId\":123,\"amount\":30}}"))) byte[] body,
            @Context HttpHeaders headers) {
        return deliver(body, headers.getHeaderString(HttpHeaders.CONTENT_ENCODING), MessageType.POINTS_REDEEMED);
    }

    private Response deliver(byte[] body, String contentEncoding, MessageType expected) {
        if (ContentCodings.transformsTheBody(contentEncoding)) {
            // The body is read as the bytes of the JSON itself; a compressed one would only fail as "not UTF-8".
            return Response.fromResponse(ApiError.response(Response.Status.UNSUPPORTED_MEDIA_TYPE,
                    "unsupported_media_type", "Content-Encoding",
                    "Content-Encoding: " + ContentCodings.notSupported(contentEncoding)))
                    .header("Accept-Encoding", "identity").build();
        }
        if (body != null && body.length > EnvelopeReader.MAX_BODY_BYTES) {
            return ApiError.response(Response.Status.REQUEST_ENTITY_TOO_LARGE, "body_too_large", "body",
                    "body: at most " + EnvelopeReader.MAX_BODY_BYTES + " bytes, got " + body.length);
        }
        PointsEnvelope envelope = reader.read(body == null ? new byte[0] : body, null);
        if (envelope.type() != expected) {
            throw new InvalidEnvelopeException("type", "this endpoint takes " + expected.wireName() + ", got "
                    + envelope.type().wireName());
        }
        ProcessingResult result;
        // The log context of every line about this message, as over AMQP.
        MDC.put("consumer", config.consumer());
        MDC.put("messageId", envelope.messageId().toString());
        try {
            result = handler.handleOnOneConnection(config.consumer(), envelope);
        } finally {
            MDC.remove("consumer");
            MDC.remove("messageId");
        }
        return switch (result.status()) {
            case FIRST_DELIVERY -> answer(result.outcome().code(), result);
            case DUPLICATE_IGNORED -> answer("duplicate_ignored", result);
            case ID_CONFLICT -> {
                LOG.warnf("Message id %s reused for consumer %s with a different message, not applied: %s",
                        result.messageId(), config.consumer(), result.conflict());
                yield ApiError.response(Response.Status.CONFLICT, "id_conflict", "messageId", "messageId: "
                        + result.messageId() + " was already used for a different message; not applied");
            }
        };
    }

    private static Response answer(String status, ProcessingResult result) {
        String outcome = result.outcome() == null ? null : result.outcome().code();
        int code = result.outcome() == InboxOutcome.REJECTED_INSUFFICIENT_BALANCE ? 422 : 200;
        return Response.status(code).entity(new Accepted(status, result.messageId(), outcome)).build();
    }
}
