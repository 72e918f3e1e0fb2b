package io.pointsinbox.api;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.quarkus.security.AuthenticationCompletionException;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.ForbiddenException;
import io.quarkus.security.UnauthorizedException;
import io.vertx.core.json.Json;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * Gives every 401 and 403 the same JSON body as every other 4xx: a token that fails authentication is refused
 * before any resource runs (this route failure handler), a missing token or role inside the resource's security
 * check ({@link ApiErrorMapper}, with the permissions applied to JAX-RS).
 */
@ApplicationScoped
public class SecurityErrors {

    private static final ApiError UNAUTHORIZED = new ApiError("unauthorized", null,
            "a valid bearer token is required: missing, expired, or not signed by the trusted issuer");
    private static final ApiError FORBIDDEN = new ApiError("forbidden", null,
            "the token is valid but lacks the role this endpoint needs");

    /** The 401 of a refusal inside a resource's security check. */
    static jakarta.ws.rs.core.Response unauthorized() {
        return jakarta.ws.rs.core.Response.status(401).header("WWW-Authenticate", "Bearer")
                .type(jakarta.ws.rs.core.MediaType.APPLICATION_JSON_TYPE).entity(UNAUTHORIZED).build();
    }

    static jakarta.ws.rs.core.Response forbidden() {
        return jakarta.ws.rs.core.Response.status(403).type(jakarta.ws.rs.core.MediaType.APPLICATION_JSON_TYPE)
                .entity(FORBIDDEN).build();
    }

    void install(@Observes Router router) {
        router.route().order(Integer.MIN_VALUE).failureHandler(this::handle);
    }

    private void handle(RoutingContext context) {
        Throwable failure = context.failure();
        if (context.response().ended() || context.response().headWritten()) {
            context.next();
        } else if (failure instanceof AuthenticationFailedException || failure instanceof UnauthorizedException
                || failure instanceof AuthenticationCompletionException) {
            context.response().putHeader("WWW-Authenticate", "Bearer");
            end(context, 401, UNAUTHORIZED);
        } else if (failure instanceof ForbiddenException) {
            end(context, 403, FORBIDDEN);
        } else {
            context.next();
        }
    }

    private static void end(RoutingContext context, int status, ApiError error) {
        context.response().setStatusCode(status).putHeader("Content-Type", "application/json")
                .end(Json.encode(error));
    }
}
