package io.pointsinbox.config;

import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

import org.eclipse.microprofile.config.Config;

import io.quarkus.runtime.StartupEvent;

/** Refuses to start on settings that are each valid but do not work together, naming the settings to change. */
@Singleton
public class StartupChecks {

    void check(@Observes StartupEvent event, Config config, PointsConfig points) {
        boolean verificationKey = config.getOptionalValue("mp.jwt.verify.publickey.location", String.class).isPresent()
                || config.getOptionalValue("mp.jwt.verify.publickey", String.class).isPresent();
        if (!verificationKey) {
            throw new IllegalStateException("No key to verify bearer tokens: set POINTS_JWT_PUBLIC_KEY_LOCATION "
                    + "(mp.jwt.verify.publickey.location) to the issuer's public key or JWKS URL");
        }
        int pool = config.getOptionalValue("quarkus.datasource.jdbc.max-size", Integer.class).orElse(20);
        // A duplicate reads the first delivery's record in a second transaction while its own is still open.
        if (pool < 2 * points.concurrency()) {
            throw new IllegalStateException("POINTS_DB_POOL_SIZE (quarkus.datasource.jdbc.max-size=" + pool
                    + ") must be at least twice POINTS_CONCURRENCY (points.concurrency=" + points.concurrency()
                    + ")");
        }
    }
}
