package io.pointsinbox.api;

import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

import jakarta.ws.rs.BadRequestException;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

import io.pointsinbox.config.PointsConfig;
import io.pointsinbox.points.PointGrant;
import io.pointsinbox.points.UserPoints;

/** Read side of this consumer's ledger: balances and the grants behind them. */
@Path("/users/{userId}")
@Produces(MediaType.APPLICATION_JSON)
public class UserPointsResource {

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

    @GET
    @Path("/points")
    public Balance points(@PathParam("userId") long userId) {
        return UserPoints.find(config.consumer(), userId)
                .map(points -> new Balance(userId, points.balance))
                .orElseThrow(() -> new NotFoundException("unknown user " + userId));
    }

    @GET
    @Path("/grants")
    public List<Grant> grants(@PathParam("userId") long userId,
            @QueryParam("limit") @DefaultValue("100") int limit) {
        if (limit < 1 || limit > 1000) {
            throw new BadRequestException("limit must be between 1 and 1000, got " + limit);
        }
        return PointGrant.newestFirst(config.consumer(), userId, limit).stream()
                .map(grant -> new Grant(grant.messageId, grant.kind.name().toLowerCase(Locale.ROOT), grant.amount,
                        grant.grantedAt))
                .toList();
    }
}
