-- The tables the job writes read cursors to (docs/contract.md, "MySQL"); DATETIME values are UTC.
-- The job creates them too when absent; here they exist before the job starts, so that the
-- state-query-api and `unread bootstrap` find them in a fresh stack.
CREATE TABLE IF NOT EXISTS user_activity (
  user_id BIGINT PRIMARY KEY,
  last_read_at DATETIME(3) NOT NULL,
  updated_at DATETIME(3) NOT NULL);

CREATE TABLE IF NOT EXISTS conversation_member (
  conversation_id BIGINT NOT NULL,
  user_id BIGINT NOT NULL,
  last_read_seq BIGINT NOT NULL DEFAULT 0,
  unread_count INT NOT NULL DEFAULT 0,      -- unread right after that read
  PRIMARY KEY (conversation_id, user_id),
  KEY ix_conversation_member_user (user_id)); -- GET /api/users/{id}/cursors reads by user
