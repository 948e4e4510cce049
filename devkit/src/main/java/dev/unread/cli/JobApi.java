package dev.unread.cli;

import dev.unread.api.ApiConfig;
import dev.unread.config.UnreadConfig;
import dev.unread.contract.Setting;
import java.util.HashMap;
import java.util.Map;

/**
 * The settings of an API in front of a given job, for the tools that start both (the local stack,
 * the tests): every setting the two share — Redis with its cluster nodes and CA file, the key
 * prefix, MySQL, Kafka — is the job's, so the API reads exactly what the job writes; the API's own
 * settings and secrets come from the environment. A setting added to both later is carried by this
 * loop, not by a list someone has to remember.
 */
public final class JobApi {

    private JobApi() {}

    /**
     * The API's settings for {@code job}, its own ones from {@code env}; change host or port after.
     */
    public static ApiConfig.Builder config(UnreadConfig job, Map<String, String> env) {
        Map<String, String> api = new HashMap<>();
        for (Setting setting : ApiConfig.SETTINGS) {
            String shared = job.value(setting);
            String value = shared != null ? shared : env.get(setting.env());
            if (value != null) {
                api.put(setting.env(), value);
            }
        }
        for (String secret : ApiConfig.SECRETS) {
            if (env.containsKey(secret)) {
                api.put(secret, env.get(secret));
            }
        }
        api.put(ApiConfig.JDBC_PASSWORD_ENV, job.jdbcPassword);
        return ApiConfig.fromEnv(api).toBuilder();
    }
}
