package io.pointsinbox.api;

import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import io.pointsinbox.contract.EnvelopeReader;
import io.quarkus.runtime.configuration.MemorySize;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.json.Json;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * Gives a request whose declared length is over the HTTP server's bound ({@code quarkus.http.limits.max-body-size})
 * the same JSON 413 as a body over the envelope's 16 KiB. Quarkus refuses such a request from its
 * {@code Content-Length} alone, before anything reads the body, with an empty 413; this route runs just before that
 * check, answers the same way (nothing read, the connection closed once the answer is sent) and says why.
 */
@ApplicationScoped
public class OversizedRequests {

    /** Quarkus's own check of the declared length is a route of order -2. */
    private static final int BEFORE_QUARKUS_LIMIT = -3;

    private final Optional<MemorySize> maxBodySize;

    OversizedRequests(@ConfigProperty(name = "quarkus.http.limits.max-body-size") Optional<MemorySize> maxBodySize) {
        this.maxBodySize = maxBodySize;
    }

    void install(@Observes Router router) {
        maxBodySize.ifPresent(limit -> router.route().order(BEFORE_QUARKUS_LIMIT)
                .handler(context -> refuseIfDeclaredOver(context, limit.asLongValue())));
    }

    private static void refuseIfDeclaredOver(RoutingContext context, long limit) {
        String declared = context.request().getHeader(HttpHeaders.CONTENT_LENGTH);
        long length;
        try {
            length = declared == null ? -1 : Long.parseLong(declared.trim());
        } catch (NumberFormatException e) {
            length = -1; // the HTTP codec refuses a malformed length itself
        }
        if (length <= limit) {
            context.next();
            return;
        }
        ApiError error = new ApiError("body_too_large", "body",
                "body: at most " + EnvelopeReader.MAX_BODY_BYTES + " bytes, got " + length);
        context.response().setStatusCode(413).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                .putHeader(HttpHeaders.CONNECTION, "close")
                .endHandler(ended -> context.request().connection().close())
                .end(Json.encode(error));
    }
}
