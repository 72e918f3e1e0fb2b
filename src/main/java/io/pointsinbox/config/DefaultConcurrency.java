package io.pointsinbox.config;

import jakarta.annotation.Priority;

import io.quarkus.runtime.annotations.StaticInitSafe;
import io.smallrye.config.Priorities;
import io.smallrye.config.ConfigSourceInterceptor;
import io.smallrye.config.ConfigSourceInterceptorContext;
import io.smallrye.config.ConfigValue;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.smallrye.config.SmallRyeConfigBuilderCustomizer;

/**
 * The default of {@code points.concurrency}, which depends on the JDK the service runs on: deliveries run on virtual
 * threads from Java 21, where a waiting delivery costs next to nothing and 16 in flight let the broker and PostgreSQL
 * batch their work; on Java 17 they run on Quarkus's worker threads, where 16 threads spent more CPU per message
 * than 8 (both measured side by side, docs/performance.md). {@code POINTS_CONCURRENCY} overrides it on any JDK.
 * <p>
 * An interceptor rather than a default value: Quarkus records default values while it builds the application, on
 * the build's JDK, and the running JDK may be another.
 */
// Static-init safe: the messaging mediator reads its concurrency while Quarkus initialises statically. Below the
// expression interceptor, which looks up the ${...} of application.properties through the interceptors beneath it.
@StaticInitSafe
@Priority(Priorities.LIBRARY + 200)
public final class DefaultConcurrency implements SmallRyeConfigBuilderCustomizer, ConfigSourceInterceptor {

    /** The property {@code application.properties} falls back to when POINTS_CONCURRENCY is not set. */
    static final String KEY = "points-inbox.default-concurrency";

    @Override
    public void configBuilder(SmallRyeConfigBuilder builder) {
        builder.withInterceptors(this);
    }

    @Override
    public ConfigValue getValue(ConfigSourceInterceptorContext context, String name) {
        if (!KEY.equals(name)) {
            return context.proceed(name);
        }
        return ConfigValue.builder().withName(KEY).withValue(String.valueOf(forJava(Runtime.version().feature())))
                .withConfigSourceName(DefaultConcurrency.class.getSimpleName()).build();
    }

    static int forJava(int feature) {
        return virtualThreads(feature) ? 16 : 8;
    }

    /** Whether deliveries run on virtual threads on this Java feature release (Quarkus falls back below 21). */
    public static boolean virtualThreads(int feature) {
        return feature >= 21;
    }
}
