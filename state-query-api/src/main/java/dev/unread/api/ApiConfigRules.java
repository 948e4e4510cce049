package dev.unread.api;

import java.nio.charset.StandardCharsets;

/** The rules of the API's settings that no one setting's bounds make: each against the others. */
final class ApiConfigRules {

    private ApiConfigRules() {}

    /**
     * Throws IllegalArgumentException naming the first rule {@code config} breaks, never showing a
     * secret.
     */
    static void check(ApiConfig config) {
        if (config.token != null && !config.token.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
            // A header value carries ASCII only; anything else could never match.
            throw new IllegalArgumentException("token must be printable ASCII without spaces");
        }
        if (config.token != null && config.token.length() < ApiSettings.MIN_TOKEN_LENGTH) {
            // The value is not shown: it is a secret, however weak.
            throw new IllegalArgumentException(
                    ApiSettings.TOKEN_ENV
                            + " must be at least "
                            + ApiSettings.MIN_TOKEN_LENGTH
                            + " characters");
        }
        if (config.jwtSecret != null && config.jwtPublicKey != null) {
            throw new IllegalArgumentException(
                    ApiSettings.JWT_SECRET_ENV
                            + " and "
                            + ApiSettings.JWT_PUBLIC_KEY_ENV
                            + " must not both be set");
        }
        if (config.jwtSecret != null
                && config.jwtSecret.getBytes(StandardCharsets.UTF_8).length < 32) {
            // HS256 needs a key of at least 256 bits (RFC 7518, 3.2); the value is not shown.
            throw new IllegalArgumentException(
                    ApiSettings.JWT_SECRET_ENV + " must be at least 32 bytes");
        }
        if (config.jwtPublicKey != null) {
            Auth.rsaPublicKey(config.jwtPublicKey);
        }
        if (!config.jdbcUrl.startsWith("jdbc:mysql:")) {
            // Without the value: it may hold a password parameter.
            throw new IllegalArgumentException("JDBC URL must start with jdbc:mysql:");
        }
        config.redisEndpoint();
        if (config.token == null
                && config.jwtSecret == null
                && config.jwtPublicKey == null
                && !config.openWithoutAuth
                && !ApiConfig.loopback(config.host)) {
            throw new IllegalArgumentException(
                    ApiSettings.HOST_ENV
                            + "="
                            + config.host
                            + " without "
                            + ApiSettings.TOKEN_ENV
                            + " or a JWT key would serve every user's data to the network: set"
                            + " a token, or "
                            + ApiSettings.OPEN_WITHOUT_AUTH.env()
                            + "=true behind a boundary you trust");
        }
    }
}
