package io.pointsinbox.api;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.ws.rs.core.Response;

import io.quarkus.security.AuthenticationCompletionException;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.ForbiddenException;
import io.quarkus.security.UnauthorizedException;
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
    static Response unauthorized() {
        return Response.fromResponse(UNAUTHORIZED.response(Response.Status.UNAUTHORIZED))
                .header("WWW-Authenticate", "Bearer").build();
    }

    static Response forbidden() {
        return FORBIDDEN.response(Response.Status.FORBIDDEN);
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
            UNAUTHORIZED.end(context, 401);
        } else if (failure instanceof ForbiddenException) {
            FORBIDDEN.end(context, 403);
        } else {
            context.next();
        }
    }
}
