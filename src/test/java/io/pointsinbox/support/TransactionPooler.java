package io.pointsinbox.support;

import java.util.Map;

import io.quarkus.test.junit.QuarkusTestProfile;

/**
 * Runs a test class with the application's connections going through a PgBouncer in {@code pool_mode=transaction},
 * configured as operations.md says: {@code prepareThreshold=0} on the JDBC URL, so that the driver names no
 * statement that a session shared with other connections could lose or confuse.
 */
public class TransactionPooler implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        int port = Pgbouncer.start(Pgbouncer.Mode.TRANSACTION);
        return Map.of("quarkus.datasource.jdbc.url", url(port));
    }

    public static String url(int port) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + PostgresTestDatabase.DATABASE + "?prepareThreshold=0";
    }
}
