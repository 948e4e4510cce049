package dev.unread.api;

import io.javalin.http.Handler;
import io.javalin.http.HandlerType;
import io.javalin.router.Endpoint;
import io.javalin.router.EndpointMetadata;
import io.javalin.security.Roles;
import java.util.Set;

/**
 * One HTTP route of {@link ApiRoutes}: Javalin's own method and path template, who may call it, and
 * whether it reads a JSON body. Registered as itself, so that the checks before its handler read
 * what it declares instead of keeping lists of paths.
 *
 * @param readsJson whether the handler reads a JSON body, which must then be declared JSON
 */
record ApiRoute(HandlerType method, String path, Access access, boolean readsJson, Handler handler)
        implements EndpointMetadata {

    /** "METHOD /path", as the OpenAPI document lists it. */
    String key() {
        return method.name() + " " + path;
    }

    /** A write: the methods rate-limited per user and refused unless declared JSON. */
    boolean write() {
        return method.equals(HandlerType.POST)
                || method.equals(HandlerType.PUT)
                || method.equals(HandlerType.DELETE);
    }

    Endpoint endpoint() {
        return new Endpoint(method, path, handler, Set.of(new Roles(Set.of(access)), this));
    }
}
