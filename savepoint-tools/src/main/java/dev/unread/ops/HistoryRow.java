package dev.unread.ops;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import org.apache.flink.connector.jdbc.core.datastream.source.reader.extractor.ResultExtractor;

/**
 * One fact of the history, already filtered by SQL, for {@link HistoryStates} to store.
 *
 * <ul>
 *   <li>INBOX_CURSOR: {@code value} = {@code last_read_at}, epoch ms.
 *   <li>SENDER: {@code id} = the sender, {@code value} = their newest {@code sent_at} past the
 *       watermark, epoch ms.
 *   <li>CONVERSATION_CURSOR: {@code id} = the conversation, {@code value} = {@code last_read_seq}.
 *   <li>UNREAD_SEQ: {@code id} = the conversation, {@code value} = a seq past the cursor.
 *   <li>MEMBERSHIP: {@code id} = the conversation, {@code value} = a membership event's seq,
 *       negated for MEMBER_LEFT (as GroupFanOut keeps it).
 *   <li>PARTICIPANT: {@code id} = a conversation the user is a participant of.
 *   <li>CHANNEL: {@code id} = a declared channel; no user.
 *   <li>CHANNEL_MEMBER: {@code id} = a channel the user has a membership event in.
 * </ul>
 */
public record HistoryRow(Kind kind, long userId, long id, long value) {

    /** The queries' facts. */
    public enum Kind {
        INBOX_CURSOR,
        SENDER,
        CONVERSATION_CURSOR,
        UNREAD_SEQ,
        MEMBERSHIP,
        PARTICIPANT,
        CHANNEL,
        CHANNEL_MEMBER
    }

    /**
     * Reads a row of one of the queries: the user, then an id where the kind has one, then the
     * value, a DATETIME(3) in UTC for times.
     */
    static final class Extractor implements ResultExtractor<HistoryRow> {
        private static final long serialVersionUID = 1L;

        private final HistoryRow.Kind kind;
        private final boolean valueIsTime;

        Extractor(HistoryRow.Kind kind, boolean valueIsTime) {
            this.kind = kind;
            this.valueIsTime = valueIsTime;
        }

        @Override
        public HistoryRow extract(ResultSet row) throws SQLException {
            boolean hasId = kind != HistoryRow.Kind.INBOX_CURSOR;
            int valueColumn = hasId ? 3 : 2;
            long value =
                    valueIsTime
                            ? row.getObject(valueColumn, LocalDateTime.class)
                                    .toInstant(ZoneOffset.UTC)
                                    .toEpochMilli()
                            : row.getLong(valueColumn);
            return new HistoryRow(kind, row.getLong(1), hasId ? row.getLong(2) : 0, value);
        }
    }
}
