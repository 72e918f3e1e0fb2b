package io.pointsinbox.api;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.pointsinbox.contract.EnvelopeReader;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * A request the HTTP routing layer fails with a 4xx before any resource runs (an HTTP/1.1 request without
 * {@code Host}, say) gets the same JSON body as every other 4xx, and is logged at DEBUG: without this route failure
 * handler Quarkus answers such a client's mistake with its own body and an ERROR line naming an error id, so that
 * any client could fill the service's log with errors. 401 and 403 are {@link SecurityErrors}'; 5xx are left to
 * Quarkus.
 */
@ApplicationScoped
public class RoutingErrors {

    private static final Logger LOG = Logger.getLogger(RoutingErrors.class);

    /** Just after {@link SecurityErrors}' handler. */
    private static final int ORDER = Integer.MIN_VALUE + 1;

    void install(@Observes Router router) {
        router.route().order(ORDER).failureHandler(RoutingErrors::handle);
    }

    private static void handle(RoutingContext context) {
        int status = context.statusCode();
        if (status < 400 || status > 499 || context.response().ended() || context.response().headWritten()) {
            context.next();
            return;
        }
        String reason = HttpResponseStatus.valueOf(status).reasonPhrase();
        Throwable failure = context.failure();
        String message = failure == null || failure.getMessage() == null ? "HTTP " + status + " " + reason
                : EnvelopeReader.abbreviate(failure.getMessage());
        LOG.debugf("HTTP request to %s refused with %d: %s",
                EnvelopeReader.abbreviate(String.valueOf(context.request().path())), status, message);
        new ApiError(ApiError.code(reason), null, message).end(context, status);
    }
}
