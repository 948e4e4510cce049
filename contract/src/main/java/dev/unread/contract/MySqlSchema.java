package dev.unread.contract;

/**
 * The MySQL tables of the contract (docs/contract.md, "MySQL"), in the one place that creates
 * them. Both statements are idempotent, so every sink writer runs its table's statement when it
 * opens and a fresh database needs no migration step before the job starts.
 *
 * <p>DATETIME(3) holds UTC wall-clock time with millisecond precision: DATETIME, unlike
 * TIMESTAMP, is never converted by the session time zone, so what the job writes is what every
 * reader sees.
 */
public final class MySqlSchema {

    public static final String USER_ACTIVITY = "user_activity";
    public static final String CONVERSATION_MEMBER = "conversation_member";

    public static final String CREATE_USER_ACTIVITY =
            "CREATE TABLE IF NOT EXISTS user_activity ("
                    + " user_id BIGINT PRIMARY KEY,"
                    + " last_read_at DATETIME(3) NOT NULL,"
                    + " updated_at DATETIME(3) NOT NULL)";

    public static final String CREATE_CONVERSATION_MEMBER =
            "CREATE TABLE IF NOT EXISTS conversation_member ("
                    + " conversation_id BIGINT NOT NULL,"
                    + " user_id BIGINT NOT NULL,"
                    + " last_read_seq BIGINT NOT NULL DEFAULT 0,"
                    + " unread_count INT NOT NULL DEFAULT 0,"
                    + " PRIMARY KEY (conversation_id, user_id))";

    private MySqlSchema() {}
}
