package dev.unread.cli;

import dev.unread.api.ApiConfig;
import dev.unread.config.UnreadConfig;
import java.util.Map;

/**
 * The settings of an API in front of a given job, for the tools that start both in one process (the
 * local stack, the tests): the job's values of every setting they share ({@link
 * ApiConfig#besideJob}).
 */
public final class JobApi {

    private JobApi() {}

    /**
     * The API's settings for {@code job}, its own ones from {@code env}; change host or port after.
     */
    public static ApiConfig.Builder config(UnreadConfig job, Map<String, String> env) {
        return ApiConfig.fromEnv(ApiConfig.besideJob(job::value, job.jdbcPassword, env))
                .toBuilder();
    }
}
