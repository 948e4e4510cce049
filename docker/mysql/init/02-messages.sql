-- The message history `unread bootstrap` builds a savepoint from. A chat platform has such a
-- table already (pass its name with --messages-table); this one lets the local stack try the
-- command. A message to oneself counts toward nothing; conversation_id and seq are both set or
-- both NULL, as in the chat-messages topic. sent_at is UTC.
CREATE TABLE IF NOT EXISTS messages (
  id BIGINT PRIMARY KEY,
  sender_id BIGINT NOT NULL,
  receiver_id BIGINT NOT NULL,
  conversation_id BIGINT NULL,
  seq BIGINT NULL,
  sent_at DATETIME(3) NOT NULL,
  KEY messages_by_receiver (receiver_id, sender_id));
