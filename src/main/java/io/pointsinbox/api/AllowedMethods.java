package io.pointsinbox.api;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Path;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * The HTTP methods each path of this service takes, read once from the resources' own annotations, so that a 405
 * names them (in its body and in {@code Allow}, which RFC 9110 requires and the REST layer does not set).
 */
@RegisterForReflection(targets = { PointsMessageResource.class, UserPointsResource.class, AdminResource.class },
        fields = false)
final class AllowedMethods {

    private record Route(Pattern path, String method) {
    }

    private static final List<Route> ROUTES = routes(PointsMessageResource.class, UserPointsResource.class,
            AdminResource.class);

    private AllowedMethods() {
    }

    /**
     * The methods the path takes, sorted: its resource methods', HEAD wherever GET is and OPTIONS, which JAX-RS
     * answers for every resource path; empty for a path that is not one of the resources'.
     */
    static Set<String> of(String path) {
        String normalized = path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        Set<String> methods = new TreeSet<>();
        for (Route route : ROUTES) {
            if (route.path().matcher(normalized).matches()) {
                methods.add(route.method());
                methods.add(HttpMethod.OPTIONS);
                if (HttpMethod.GET.equals(route.method())) {
                    methods.add(HttpMethod.HEAD);
                }
            }
        }
        return methods;
    }

    private static List<Route> routes(Class<?>... resources) {
        List<Route> routes = new ArrayList<>();
        for (Class<?> resource : resources) {
            String base = template(resource.getAnnotation(Path.class));
            for (Method method : resource.getDeclaredMethods()) {
                for (var annotation : method.getAnnotations()) {
                    HttpMethod http = annotation.annotationType().getAnnotation(HttpMethod.class);
                    if (http != null) {
                        routes.add(new Route(pattern(base + template(method.getAnnotation(Path.class))), http.value()));
                    }
                }
            }
        }
        return List.copyOf(routes);
    }

    private static String template(Path path) {
        if (path == null || path.value().isEmpty() || "/".equals(path.value())) {
            return "";
        }
        String value = path.value().startsWith("/") ? path.value() : "/" + path.value();
        return value.endsWith("/") ? value.substring(0, value.length() - 1) : value;
    }

    /** A path template as a pattern: each {@code {name}} one segment, everything else literal. */
    private static Pattern pattern(String template) {
        StringBuilder regex = new StringBuilder();
        int at = 0;
        while (at < template.length()) {
            int open = template.indexOf('{', at);
            int close = open < 0 ? -1 : template.indexOf('}', open);
            if (close < 0) {
                regex.append(Pattern.quote(template.substring(at)));
                break;
            }
            regex.append(Pattern.quote(template.substring(at, open))).append("[^/]+");
            at = close + 1;
        }
        return Pattern.compile(regex.toString());
    }
}
