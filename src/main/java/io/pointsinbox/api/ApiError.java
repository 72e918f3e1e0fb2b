package io.pointsinbox.api;

import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import io.quarkus.runtime.annotations.RegisterForReflection;

/** The JSON body of every 4xx: what kind of error, which field (when there is one) and why. */
@RegisterForReflection
public record ApiError(String error, String field, String message) {

    static Response response(Response.StatusType status, String error, String field, String message) {
        return Response.status(status)
                .type(MediaType.APPLICATION_JSON_TYPE)
                .entity(new ApiError(error, field, message))
                .build();
    }
}
