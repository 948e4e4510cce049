package dev.unread.api;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * A WebSocket upgrade whose path holds a {@code %} that does not start two hex digits, such as
 * {@code %u0031} (which Jetty lets through), gets 400 before Javalin matches its route: Javalin
 * decodes the path there, outside every handler of the API, and Jetty answered 500 with a stack
 * trace in the log for each such request. HTTP requests are refused so by a before-handler.
 */
final class MalformedUpgradeFilter implements Filter {

    static final Pattern BAD_ESCAPE = Pattern.compile("%(?![0-9A-Fa-f]{2})");

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest http = (HttpServletRequest) request;
        if (http.getHeader("Upgrade") == null || !BAD_ESCAPE.matcher(http.getRequestURI()).find()) {
            chain.doFilter(request, response);
            return;
        }
        HttpServletResponse answer = (HttpServletResponse) response;
        answer.setStatus(400);
        answer.setHeader("Cache-Control", "no-store");
        answer.setHeader("X-Content-Type-Options", "nosniff");
        answer.setContentType(Responses.JSON);
        answer.getOutputStream()
                .write(
                        JsonErrorHandler.body(400, "malformed %-escape in the path")
                                .getBytes(StandardCharsets.UTF_8));
    }
}
