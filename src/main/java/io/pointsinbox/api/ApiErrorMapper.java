package io.pointsinbox.api;

import java.util.UUID;

import javax.sql.DataSource;

import jakarta.transaction.RollbackException;
import jakarta.ws.rs.NotAcceptableException;
import jakarta.ws.rs.NotAllowedException;
import jakarta.ws.rs.NotSupportedException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Request;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;

import org.hibernate.JDBCException;
import org.hibernate.exception.JDBCConnectionException;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import io.pointsinbox.config.PointsConfig;
import io.pointsinbox.contract.EnvelopeReader;
import io.pointsinbox.contract.InvalidEnvelopeException;
import io.pointsinbox.ops.DatabaseConnectionLoss;
import io.pointsinbox.ops.IdleConnections;
import io.pointsinbox.ops.InboxMetrics;

/**
 * Every client error leaves as JSON: an invalid message is a 400 naming the field; nothing was stored. A database that
 * does not answer, or a transaction that did not commit, is a 503 with {@code Retry-After}.
 */
public class ApiErrorMapper {

    static final String DATABASE_UNAVAILABLE = "the database does not answer; retry later (a message sent again with"
            + " the same messageId is never applied twice)";
    public static final String NOT_COMMITTED = "the transaction did not commit (rolled back at its timeout, for"
            + " instance while waiting on a lock, or its commit failed); retry later (a message sent again with the"
            + " same messageId is never applied twice)";
    private static final int RETRY_AFTER_SECONDS = 5;
    private static final Logger LOG = Logger.getLogger(ApiErrorMapper.class);

    private final InboxMetrics metrics;
    private final PointsConfig config;
    private final DataSource dataSource;

    ApiErrorMapper(InboxMetrics metrics, PointsConfig config, DataSource dataSource) {
        this.metrics = metrics;
        this.config = config;
        this.dataSource = dataSource;
    }

    @ServerExceptionMapper
    public Response invalid(InvalidEnvelopeException e) {
        metrics.rejected(config.consumer());
        return ApiError.response(Response.Status.BAD_REQUEST, "invalid_message", e.field(), e.getMessage());
    }

    @ServerExceptionMapper(priority = jakarta.ws.rs.Priorities.AUTHENTICATION)
    public Response unauthorized(io.quarkus.security.UnauthorizedException e) {
        return SecurityErrors.unauthorized();
    }

    @ServerExceptionMapper(priority = jakarta.ws.rs.Priorities.AUTHENTICATION)
    public Response authenticationFailed(io.quarkus.security.AuthenticationFailedException e) {
        return SecurityErrors.unauthorized();
    }

    @ServerExceptionMapper(priority = jakarta.ws.rs.Priorities.AUTHENTICATION)
    public Response forbidden(io.quarkus.security.ForbiddenException e) {
        return SecurityErrors.forbidden();
    }

    /**
     * The database does not answer (no connection within the pool's acquisition timeout, or one lost mid-request,
     * whether Hibernate saw SQL state class 08 or the driver said 57P01, "terminating connection due to administrator
     * command", as a restarted or failed-over PostgreSQL does), or refuses a new connection (too many clients, closed
     * to new sessions, a failed login): a 503 the client can retry. A message sent again with the same messageId is
     * never applied twice, even if this attempt's commit did reach the database. The pool's idle connections are
     * closed ({@link IdleConnections}), so that the retry does not meet the same dead end. Any other failure of a
     * statement is the service's: a 500 naming an error id, logged with its stack trace under that id. Either way the
     * transaction was rolled back.
     */
    @ServerExceptionMapper
    public Response statementFailed(JDBCException e) {
        if (e instanceof JDBCConnectionException || DatabaseConnectionLoss.in(e).isPresent()) {
            LOG.warnf("Database unreachable, answered 503: %s", e.getMessage());
            IdleConnections.discard(dataSource);
            return retryLater("database_unavailable", DATABASE_UNAVAILABLE);
        }
        String errorId = UUID.randomUUID().toString();
        LOG.errorf(e, "Request failed on a database statement, answered 500 (error id %s)", errorId);
        return ApiError.response(Response.Status.INTERNAL_SERVER_ERROR, "internal_error", null,
                "the request failed on the database and nothing of it was applied (error id " + errorId + ")");
    }

    /**
     * The transaction did not commit: the transaction manager rolled it back at its timeout (a statement waiting on a
     * lock held past it, for instance), or its commit failed. Nothing of it was applied, unless a commit that failed
     * on its way back had reached the database: either way a 503 the client can retry, like an outage.
     */
    @ServerExceptionMapper
    public Response notCommitted(RollbackException e) {
        LOG.warnf("Transaction rolled back before it committed, answered 503: %s", e.getMessage());
        // Rolled back at its timeout may also mean a statement that waited on a database that fell silent.
        IdleConnections.discard(dataSource);
        return retryLater("transaction_rolled_back", NOT_COMMITTED);
    }

    private static Response retryLater(String error, String message) {
        return Response.fromResponse(ApiError.response(Response.Status.SERVICE_UNAVAILABLE, error, null, message))
                .header("Retry-After", RETRY_AFTER_SECONDS).build();
    }

    @ServerExceptionMapper
    public Response invalidParameter(UserPointsResource.InvalidParameterException e) {
        return ApiError.response(Response.Status.BAD_REQUEST, "invalid_parameter", e.parameter(), e.getMessage());
    }

    /** A body that is not declared as JSON: the client is told which header to fix and what it said. */
    @ServerExceptionMapper
    public Response unsupportedMediaType(NotSupportedException e, HttpHeaders headers) {
        String type = headers.getHeaderString(HttpHeaders.CONTENT_TYPE);
        return ApiError.response(Response.Status.UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type", "Content-Type",
                "Content-Type: " + (type == null || type.isBlank() ? "missing" : type + " is not supported")
                        + "; send the JSON as application/json");
    }

    /** A method the path does not take: the client is told which ones it does, in the body and in {@code Allow}. */
    @ServerExceptionMapper
    public Response methodNotAllowed(NotAllowedException e, Request request, UriInfo uri) {
        String allowed = String.join(", ", AllowedMethods.of(uri.getPath()));
        Response.ResponseBuilder response = Response.fromResponse(ApiError.response(Response.Status.METHOD_NOT_ALLOWED,
                "method_not_allowed", null, EnvelopeReader.abbreviate(request.getMethod()) + " is not allowed here"
                        + (allowed.isEmpty() ? "" : "; allowed: " + allowed)));
        return allowed.isEmpty() ? response.build() : response.header(HttpHeaders.ALLOW, allowed).build();
    }

    /** An {@code Accept} header that no answer of the endpoint meets: every answer here is JSON. */
    @ServerExceptionMapper
    public Response notAcceptable(NotAcceptableException e, HttpHeaders headers) {
        return ApiError.response(Response.Status.NOT_ACCEPTABLE, "not_acceptable", "Accept", "Accept: "
                + EnvelopeReader.abbreviate(String.valueOf(headers.getHeaderString(HttpHeaders.ACCEPT)))
                + " cannot be met; this endpoint answers application/json");
    }

    @ServerExceptionMapper
    public Response clientError(WebApplicationException e) {
        Response original = e.getResponse();
        if (original.getStatus() >= 500) {
            return original;
        }
        Response.StatusType status = original.getStatusInfo();
        return ApiError.response(status, ApiError.code(status.getReasonPhrase()), null, e.getMessage());
    }
}
