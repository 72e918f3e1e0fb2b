package io.pointsinbox.api;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import io.pointsinbox.ops.Reconciliation;

/** Operator endpoints: the reconciliation answers 200 when the ledger is consistent and 409 when it is not. */
@Path("/admin")
@Produces(MediaType.APPLICATION_JSON)
public class AdminResource {

    private final Reconciliation reconciliation;

    AdminResource(Reconciliation reconciliation) {
        this.reconciliation = reconciliation;
    }

    @GET
    @Path("/reconciliation")
    public Response reconciliation() {
        Reconciliation.Report report = reconciliation.run();
        return Response.status(report.consistent() ? Response.Status.OK : Response.Status.CONFLICT)
                .entity(report).build();
    }
}
