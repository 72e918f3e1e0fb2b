package io.pointsinbox.config;

import io.quarkus.runtime.annotations.StaticInitSafe;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.smallrye.config.SmallRyeConfigBuilderCustomizer;

/**
 * Installs {@link SettingsValidator} and {@link SettingTypes} on every configuration Quarkus builds (registered in
 * {@code META-INF/services/io.smallrye.config.SmallRyeConfigBuilderCustomizer}).
 */
// Static-init safe: the worker pool reads its size while Quarkus initialises statically, and a malformed value must be
// caught there too (SettingTypes only reads values it is asked for).
@StaticInitSafe
public final class SettingsValidation implements SmallRyeConfigBuilderCustomizer {

    @Override
    public void configBuilder(SmallRyeConfigBuilder builder) {
        builder.withValidator(new SettingsValidator()).withInterceptors(new SettingTypes());
    }
}
