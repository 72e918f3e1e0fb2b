package io.pointsinbox.support;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The broker and the test database for a test class that starts the packaged application itself, outside Quarkus'
 * test lifecycle, with the environment that points an application at both and a directory for its logs:
 *
 * <pre>
 * &#64;RegisterExtension
 * static final PackagedAppServices SERVICES = PackagedAppServices.create().logsIn("my-it");
 * </pre>
 *
 * Before the class: the log directory emptied (the applications append to their logs), a broker started on a fresh
 * journal, the test database created if missing and migrated. Before each test: the consumed and dead-letter queues
 * emptied. After the class: the broker stopped and the database's proxy closed.
 */
public final class PackagedAppServices implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback {

    private int maxDeliveryAttempts = ArtemisTestResource.MAX_DELIVERY_ATTEMPTS;
    private ArtemisTestResource broker;
    private final PostgresTestDatabase database = new PostgresTestDatabase();
    private final Map<String, String> settings = new HashMap<>();
    private final Map<String, String> environment = new HashMap<>();
    private Path logs = Path.of("target", "packaged-app-it");

    private PackagedAppServices() {
    }

    /** Its broker dead-letters a message after {@link ArtemisTestResource#MAX_DELIVERY_ATTEMPTS} deliveries. */
    public static PackagedAppServices create() {
        return new PackagedAppServices();
    }

    /** The broker moves a message to its dead-letter address after {@code attempts} deliveries instead. */
    public PackagedAppServices deadLetteringAfter(int attempts) {
        this.maxDeliveryAttempts = attempts;
        return this;
    }

    /** The applications' logs go to {@code target/<directory>}. */
    public PackagedAppServices logsIn(String directory) {
        this.logs = Path.of("target", directory);
        return this;
    }

    /** A setting (an environment variable) that every application of the class gets. */
    public PackagedAppServices with(String name, String value) {
        settings.put(name, value);
        return this;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        AppProcess.clearLogs(logs);
        broker = new ArtemisTestResource(maxDeliveryAttempts);
        Map<String, String> amqp = broker.start();
        database.start();
        String jdbcUrl = System.getProperty(PostgresTestDatabase.DIRECT_URL);
        // The tests read the schema before any application of theirs has migrated it, and may run alone.
        PostgresTestDatabase.migrate(jdbcUrl);
        environment.putAll(AppProcess.environment(amqp, jdbcUrl, PostgresTestDatabase.user(),
                PostgresTestDatabase.password()));
        environment.putAll(settings);
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        ArtemisTestResource.purge(ArtemisTestResource.ADDRESS);
        ArtemisTestResource.purge(ArtemisTestResource.DEAD_LETTER);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        try {
            if (broker != null) {
                broker.stop();
            }
        } finally {
            database.stop();
        }
    }

    /** The environment of an application of this class: a copy each time, which a test may add settings to. */
    public Map<String, String> environment() {
        return new HashMap<>(environment);
    }

    /** A log file in the class's log directory. */
    public Path log(String fileName) {
        return logs.resolve(fileName);
    }
}
