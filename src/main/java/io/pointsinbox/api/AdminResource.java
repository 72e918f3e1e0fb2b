package io.pointsinbox.api;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.ExampleObject;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;

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
    @Operation(summary = "Check the ledger invariants of every consumer",
            description = "Every balance equals the sum of its entries, every entry has its inbox row and every"
                    + " applied inbox row its entry. 200 when consistent, 409 with the violations when not.")
    @SecurityRequirement(name = "bearer")
    @APIResponse(responseCode = "200", description = "consistent", content = @Content(examples = @ExampleObject(
            name = "consistent", value = "{\"consistent\":true,\"consumers\":[{\"consumer\":\"points-ledger\","
                    + "\"users\":1,\"balanceTotal\":100,\"entries\":1,\"entriesTotal\":100,"
                    + "\"inboxByOutcome\":{\"PROCESSED\":1}}],\"violations\":[]}")))
    @APIResponse(responseCode = "409", description = "inconsistent: the violations found", content = @Content(
            examples = @ExampleObject(name = "inconsistent", value = "{\"consistent\":false,\"consumers\":[],"
                    + "\"violations\":[{\"check\":\"balance_differs_from_entries\",\"consumer\":"
                    + "\"points-ledger\",\"userId\":123,\"detail\":\"balance 100, entries 70\"}]}")))
    @APIResponse(responseCode = "401", ref = "Unauthorized")
    @APIResponse(responseCode = "403", ref = "Forbidden")
    @APIResponse(responseCode = "503", ref = "DatabaseUnavailable")
    public Response reconciliation() {
        Reconciliation.Report report = reconciliation.run();
        return Response.status(report.consistent() ? Response.Status.OK : Response.Status.CONFLICT)
                .entity(report).build();
    }
}
