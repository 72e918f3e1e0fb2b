package io.pointsinbox.ops;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

import java.util.UUID;

import org.junit.jupiter.api.Test;

import io.pointsinbox.support.InboxTestBase;
import io.pointsinbox.support.Ledger;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

@QuarkusTest
class ReconciliationTest extends InboxTestBase {

    @Test
    void aConsistentLedgerIs200WithTotalsPerConsumer() {
        given().contentType(ContentType.JSON).body(grant(UUID.randomUUID(), 6_006, 40))
                .post("/messages/points-granted").then().statusCode(200);

        given().get("/admin/reconciliation").then().statusCode(200)
                .body("consistent", equalTo(true))
                .body("consumers[0].consumer", equalTo(CONSUMER))
                .body("consumers[0].balanceTotal", equalTo(40))
                .body("consumers[0].entriesTotal", equalTo(40))
                .body("consumers[0].inboxByOutcome.processed", equalTo(1));
    }

    @Test
    void aTamperedBalanceOrAMissingClaimIs409NamingTheViolation() {
        UUID id = UUID.randomUUID();
        given().contentType(ContentType.JSON).body(grant(id, 6_007, 40))
                .post("/messages/points-granted").then().statusCode(200);
        Ledger.execute("update user_points set balance = balance + 1 where user_id = 6007");
        Ledger.execute("delete from inbox_message where message_id = '" + id + "'");

        given().get("/admin/reconciliation").then().statusCode(409)
                .body("consistent", equalTo(false))
                .body("violations.check", hasItem("balance_differs_from_entries"))
                .body("violations.check", hasItem("entry_without_inbox_claim"))
                .body("violations.find { it.check == 'balance_differs_from_entries' }.userId", equalTo(6007));
    }

    @Test
    void anAppliedInboxRowWithoutItsEntryIs409NamingTheMessage() {
        UUID id = UUID.randomUUID();
        given().contentType(ContentType.JSON).body(grant(id, 6_008, 25))
                .post("/messages/points-granted").then().statusCode(200);
        // The entry gone and the balance lowered to match: only the inbox row still says the message was applied.
        Ledger.execute("delete from point_grant where message_id = '" + id + "'");
        Ledger.execute("update user_points set balance = balance - 25 where user_id = 6008");

        given().get("/admin/reconciliation").then().statusCode(409)
                .body("consistent", equalTo(false))
                .body("violations.check", hasItem("applied_claim_without_entry"))
                .body("violations.find { it.check == 'applied_claim_without_entry' }.detail",
                        containsString(id.toString()));
    }

    @Test
    void theSchemaRefusesANegativeBalanceSoNoCheckIsNeededForIt() {
        UUID id = UUID.randomUUID();
        given().contentType(ContentType.JSON).body(grant(id, 6_009, 5))
                .post("/messages/points-granted").then().statusCode(200);
        org.junit.jupiter.api.Assertions.assertThrows(RuntimeException.class,
                () -> Ledger.execute("update user_points set balance = -1 where user_id = 6009"));
    }
}
