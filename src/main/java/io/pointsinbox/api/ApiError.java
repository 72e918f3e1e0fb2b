package io.pointsinbox.api;

import java.util.Locale;

import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import io.quarkus.runtime.annotations.RegisterForReflection;
import io.vertx.core.json.Json;
import io.vertx.ext.web.RoutingContext;

/** The JSON body of every 4xx: what kind of error, which field (when there is one) and why. */
@RegisterForReflection
public record ApiError(String error, String field, String message) {

    /** The error code of a status with no more precise one: its reason phrase in snake case, "method_not_allowed". */
    static String code(String reasonPhrase) {
        return reasonPhrase.toLowerCase(Locale.ROOT).replace(' ', '_');
    }

    /** Ends a request answered by a route handler, outside JAX-RS, with this body. */
    void end(RoutingContext context, int status) {
        context.response().setStatusCode(status).putHeader("Content-Type", "application/json").end(Json.encode(this));
    }

    static Response response(Response.StatusType status, String error, String field, String message) {
        return new ApiError(error, field, message).response(status);
    }

    /** A JAX-RS response with this body. */
    Response response(Response.StatusType status) {
        return Response.status(status).type(MediaType.APPLICATION_JSON_TYPE).entity(this).build();
    }
}
