package io.pointsinbox.api;

import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Pattern;

import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.ExampleObject;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

import io.pointsinbox.config.PointsConfig;
import io.pointsinbox.contract.EnvelopeReader;
import io.pointsinbox.points.PointGrant;
import io.pointsinbox.points.UserPoints;

/** Read side of this consumer's ledger: balances and the grants behind them. */
@Path("/users/{userId}")
@Produces(MediaType.APPLICATION_JSON)
public class UserPointsResource {

    /** An integer as a client writes one: an optional sign and ASCII digits. */
    private static final Pattern ASCII_INTEGER = Pattern.compile("[+-]?[0-9]{1,1000}");

    private final PointsConfig config;

    UserPointsResource(PointsConfig config) {
        this.config = config;
    }

    /** A user's balance. */
    public record Balance(long userId, long balance) {
    }

    /** One ledger entry: a grant (positive amount) or a redemption (negative amount). */
    public record Grant(UUID messageId, String kind, long amount, Instant grantedAt) {
    }

    /** The most grants one page returns; {@code limit} defaults to {@value #DEFAULT_LIMIT}. */
    public static final int MAX_LIMIT = 1000;
    public static final int DEFAULT_LIMIT = 100;

    @GET
    @Path("/points")
    @Operation(summary = "A user's balance in this consumer's ledger")
    @APIResponse(responseCode = "200", description = "the balance", content = @Content(schema = @Schema(
            implementation = Balance.class), examples = @ExampleObject(name = "balance",
                    value = "{\"userId\":123,\"balance\":70}")))
    @APIResponse(responseCode = "400", ref = "InvalidParameter")
    @APIResponse(responseCode = "404", ref = "UnknownUser")
    @APIResponse(responseCode = "503", ref = "DatabaseUnavailable")
    public Balance points(@PathParam("userId") String userIdParameter) {
        long userId = userId(userIdParameter);
        return UserPoints.find(config.consumer(), userId)
                .map(points -> new Balance(userId, points.balance))
                .orElseThrow(() -> new NotFoundException("unknown user " + userId));
    }

    @GET
    @Path("/grants")
    @Operation(summary = "A user's ledger entries, newest first",
            description = "Grants are positive, redemptions negative; limit from 1 to " + MAX_LIMIT + ", default "
                    + DEFAULT_LIMIT + ".")
    @APIResponse(responseCode = "200", description = "the entries", content = @Content(schema = @Schema(
            implementation = Grant[].class), examples = @ExampleObject(name = "entries", value = "[{\"messageId\":"
                    + "\"0c1b3c52-7f0e-4a55-9a43-2a1f2f8f3b10\",\"kind\":\"redemption\",\"amount\":-30,"
                    + "\"grantedAt\":\"2026-12-01T10:15:31Z\"},{\"messageId\":\"9b4df7bf-25d4-4a1e-9f07-4cc6fbb4a3ad\","
                    + "\"kind\":\"grant\",\"amount\":100,\"grantedAt\":\"2026-12-01T10:15:30Z\"}]")))
    @APIResponse(responseCode = "400", ref = "InvalidParameter")
    @APIResponse(responseCode = "503", ref = "DatabaseUnavailable")
    public List<Grant> grants(@PathParam("userId") String userIdParameter,
            @QueryParam("limit") @DefaultValue("" + DEFAULT_LIMIT) String limitParameter) {
        long userId = userId(userIdParameter);
        String rule = "must be between 1 and " + MAX_LIMIT;
        long limit = integer("limit", limitParameter, rule);
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new InvalidParameterException("limit", "limit " + rule + ", got " + limit);
        }
        return PointGrant.newestFirst(config.consumer(), userId, (int) limit).stream()
                .map(grant -> new Grant(grant.messageId, grant.kind.name().toLowerCase(Locale.ROOT), grant.amount,
                        grant.grantedAt))
                .toList();
    }

    private static long userId(String value) {
        long userId = integer("userId", value, "must be a positive integer up to " + Long.MAX_VALUE);
        if (userId < 1) {
            throw new InvalidParameterException("userId", "userId must be a positive integer, got " + userId);
        }
        return userId;
    }

    /**
     * The parameter as a long, written in ASCII digits (Java would also read other scripts' digits, so that
     * {@code /users/\u0661/points} would be user 1); {@code range} is the reason given for an integer too large.
     */
    private static long integer(String name, String value, String range) {
        String text = value.strip();
        if (!ASCII_INTEGER.matcher(text).matches()) {
            throw new InvalidParameterException(name,
                    name + " must be an integer, got '" + EnvelopeReader.abbreviate(value) + "'");
        }
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new InvalidParameterException(name, name + " " + range + ", got " + EnvelopeReader.abbreviate(text));
        }
    }

    /** A path or query parameter that is not what the endpoint accepts: a 400 naming it. */
    static final class InvalidParameterException extends RuntimeException {
        private final String parameter;

        InvalidParameterException(String parameter, String message) {
            super(message);
            this.parameter = parameter;
        }

        String parameter() {
            return parameter;
        }
    }
}
