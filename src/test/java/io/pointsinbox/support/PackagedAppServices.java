package io.pointsinbox.support;

import java.util.HashMap;
import java.util.Map;

/**
 * The broker and the test database for tests that start the packaged application themselves, outside Quarkus' test
 * lifecycle, and the environment that points an application at both.
 */
public final class PackagedAppServices {

    private final ArtemisTestResource broker;
    private final PostgresTestDatabase database = new PostgresTestDatabase();
    private final Map<String, String> environment = new HashMap<>();

    private PackagedAppServices(int maxDeliveryAttempts) {
        this.broker = new ArtemisTestResource(maxDeliveryAttempts);
    }

    /** Starts a broker that dead-letters after {@code maxDeliveryAttempts}, and the test database. */
    public static PackagedAppServices start(int maxDeliveryAttempts) {
        PackagedAppServices services = new PackagedAppServices(maxDeliveryAttempts);
        Map<String, String> amqp = services.broker.start();
        services.database.start();
        services.environment.putAll(AppProcess.environment(amqp, System.getProperty(PostgresTestDatabase.DIRECT_URL),
                System.getProperty("quarkus.datasource.username"), System.getProperty("quarkus.datasource.password")));
        return services;
    }

    /** The application's environment; tests add their own settings to it. */
    public Map<String, String> environment() {
        return environment;
    }

    public void stop() {
        broker.stop();
        database.stop();
    }
}
