package io.pointsinbox.config;

import io.smallrye.config.SmallRyeConfigBuilder;
import io.smallrye.config.SmallRyeConfigBuilderCustomizer;

/**
 * Installs {@link SettingsValidator} on every configuration Quarkus builds (registered in
 * {@code META-INF/services/io.smallrye.config.SmallRyeConfigBuilderCustomizer}).
 */
public final class SettingsValidation implements SmallRyeConfigBuilderCustomizer {

    @Override
    public void configBuilder(SmallRyeConfigBuilder builder) {
        builder.withValidator(new SettingsValidator());
    }
}
