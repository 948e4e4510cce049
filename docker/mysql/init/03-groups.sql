-- The group history `unread bootstrap` reads beside the messages table, as chat-conversations
-- carries it (other names: --group-messages-table, --membership-table). A group message is stored
-- once, not once per member. A membership event at seq j governs the messages of the group with
-- seq > j: a message reaches the users whose newest event below its seq is a join (a join and a
-- leave at one seq: the leave), and while the newest event of a user is a leave, the counts of
-- that conversation are hidden. sent_at is UTC.
CREATE TABLE IF NOT EXISTS group_messages (
  id BIGINT PRIMARY KEY,
  conversation_id BIGINT NOT NULL,
  seq BIGINT NOT NULL,
  sender_id BIGINT NOT NULL,
  sent_at DATETIME(3) NOT NULL,
  KEY group_messages_by_conversation (conversation_id, seq));

CREATE TABLE IF NOT EXISTS group_membership_events (
  conversation_id BIGINT NOT NULL,
  user_id BIGINT NOT NULL,
  seq BIGINT NOT NULL,
  joined BOOLEAN NOT NULL,                  -- MEMBER_JOINED, or MEMBER_LEFT when false
  PRIMARY KEY (conversation_id, user_id, seq, joined));

-- The conversations of the tables above that are channels (docs/contract.md, "Channels": a CHANNEL
-- before every other record of the conversation), counted once per message by the channel stage;
-- every other conversation is a group. Optional (--channels-table): without it, none is.
CREATE TABLE IF NOT EXISTS group_channels (
  conversation_id BIGINT PRIMARY KEY);
