package dev.unread.counter;

import dev.unread.state.ConversationState;
import dev.unread.state.InboxState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;

/**
 * The inbox and conversation records of the users seen last, deserialized, per subtask. Nearly
 * every event reads and writes its user's inbox record and one conversation record, and reading
 * them from RocksDB through their serializers, and writing them back, was about a third of the
 * counting task in every profile (docs/benchmarks.md).
 *
 * <p>With {@link #writeBack} set, a record stored is kept here, dirty, and written to the keyed
 * state later: when its user leaves the cache, when more than {@link #MAX_DIRTY} records wait (the
 * oldest-dirtied users first, so that a checkpoint's write-back stays short), and at every
 * checkpoint ({@link #writeBackAll}, from the operator's {@code snapshotState}, before the backend
 * takes its snapshot), so every checkpoint holds every record; one not yet written when the job
 * fails is rebuilt by the replay of the events after that checkpoint, which the failure rolls back
 * with it. A walk over a user's conversations writes that user's dirty ones first, since it reads
 * the keyed state. Without it (a bare {@code KeyedProcessOperator}, as some tests run the counter)
 * every store goes to the keyed state at once and this is only a read cache.
 *
 * <p>Whoever changes a record this hands out must store it before the next event: the next read
 * gets the same object.
 */
final class RecordCache {

    /** The operator's {@code setCurrentKey}: writing a record back selects its user's key. */
    interface Keys {
        void select(long user) throws Exception;
    }

    /**
     * Records kept per subtask, inboxes and conversations alike: 10–20 MiB of heap (a record's sets
     * hold at most {@link ConversationSeqs#SMALL} seqs each, the rest in their own state).
     */
    static final int MAX_RECORDS = 1 << 15;

    /** Records stored and not yet written back, per subtask: what a checkpoint writes at most. */
    static final int MAX_DIRTY = 1 << 12;

    private final ValueState<InboxState> inboxState;
    private final MapState<Long, ConversationState> conversationState;

    /** Null: every store goes to the keyed state at once. */
    private Keys keys;

    private int maxRecords = MAX_RECORDS;
    private int maxDirty = MAX_DIRTY;

    /** In access order, the eldest first out. */
    private final LinkedHashMap<Long, UserRecords> users = new LinkedHashMap<>(1024, 0.75f, true);

    /** Users with records to write back, in the order they became so. */
    private final LinkedHashMap<Long, UserRecords> dirtyUsers = new LinkedHashMap<>();

    /** The current user's conversation records. */
    final ConversationRecords conversations = new ConversationRecords();

    private long currentUser;
    private UserRecords current;
    private int records;
    private int dirty;

    RecordCache(
            ValueState<InboxState> inboxState,
            MapState<Long, ConversationState> conversationState) {
        this.inboxState = inboxState;
        this.conversationState = conversationState;
    }

    /**
     * Keeps stored records here until a checkpoint, writing them back through {@code keys}; with at
     * most {@code maxRecords} kept and {@code maxDirty} waiting to be written.
     */
    void writeBack(Keys keys, int maxRecords, int maxDirty) {
        this.keys = keys;
        this.maxRecords = maxRecords;
        this.maxDirty = maxDirty;
    }

    /** One user's records as the cache holds them. */
    private static final class UserRecords {
        /** Null until read. */
        InboxState inbox;

        /** Whether the keyed state holds an inbox record, or will when written back. */
        boolean inboxStored;

        boolean inboxDirty;
        final Map<Long, ConversationState> conversations = new HashMap<>();
        final List<Long> dirtyConversations = new ArrayList<>(2);

        int size() {
            return 1 + conversations.size();
        }

        boolean isDirty() {
            return inboxDirty || !dirtyConversations.isEmpty();
        }
    }

    /**
     * Makes {@code user}, whose key the keyed state is on, the one the other calls are about, and
     * returns their inbox record, new when none.
     */
    InboxState select(long user) throws Exception {
        if (current == null || currentUser != user) {
            currentUser = user;
            current = users.get(user);
            if (current == null) {
                current = new UserRecords();
                users.put(user, current);
                records += current.size();
                evict();
            }
        }
        if (current.inbox == null) {
            InboxState stored = inboxState.value();
            current.inboxStored = stored != null;
            current.inbox = stored == null ? new InboxState() : stored;
        }
        return current.inbox;
    }

    /** The current user's inbox record, or null when the keyed state has none. */
    InboxState storedInbox() throws Exception {
        InboxState inbox = select(currentUser);
        return current.inboxStored ? inbox : null;
    }

    /** Stores {@code inbox} as the current user's inbox record. */
    void storeInbox(InboxState inbox) throws Exception {
        current.inbox = inbox;
        current.inboxStored = true;
        if (keys == null) {
            inboxState.update(inbox);
        } else if (!current.inboxDirty) {
            current.inboxDirty = true;
            dirtied();
        }
    }

    /** The current user's conversation records, as {@link UserStates#conversations} gives them. */
    final class ConversationRecords {
        private ConversationRecords() {}

        /** The record of the conversation, or null when none. */
        ConversationState get(long id) throws Exception {
            return conversation(id);
        }

        /** Stores the record of the conversation. */
        void put(long id, ConversationState state) throws Exception {
            storeConversation(id, state);
        }

        /** Every record, read from the keyed state after the dirty ones are written to it. */
        Iterable<Map.Entry<Long, ConversationState>> entries() throws Exception {
            return readConversations();
        }
    }

    private ConversationState conversation(long id) throws Exception {
        ConversationState state = current.conversations.get(id);
        if (state == null) {
            state = conversationState.get(id);
            if (state != null) {
                current.conversations.put(id, state);
                records++;
                evict();
            }
        }
        return state;
    }

    private void storeConversation(long id, ConversationState state) throws Exception {
        if (current.conversations.put(id, state) == null) {
            records++;
        }
        if (keys == null) {
            conversationState.put(id, state);
        } else if (!current.dirtyConversations.contains(id)) {
            current.dirtyConversations.add(id);
            dirtied();
        }
        evict();
    }

    private Iterable<Map.Entry<Long, ConversationState>> readConversations() throws Exception {
        if (!current.dirtyConversations.isEmpty()) {
            writeConversations(current);
            if (!current.inboxDirty) {
                dirtyUsers.remove(currentUser);
            }
        }
        return conversationState.entries();
    }

    /** Forgets the current user's records, here and in the keyed state. */
    void clear() throws Exception {
        records -= current.size();
        dirty -= (current.inboxDirty ? 1 : 0) + current.dirtyConversations.size();
        dirtyUsers.remove(currentUser);
        current = new UserRecords();
        current.inbox = new InboxState();
        records += current.size();
        users.put(currentUser, current);
        inboxState.clear();
        conversationState.clear();
    }

    /** Writes every record not yet written back to the keyed state; at each checkpoint. */
    void writeBackAll() throws Exception {
        writeBackUntil(0);
    }

    private void dirtied() throws Exception {
        dirty++;
        dirtyUsers.putIfAbsent(currentUser, current);
        if (dirty > maxDirty) {
            writeBackUntil(maxDirty / 2);
        }
    }

    private void writeBackUntil(int left) throws Exception {
        var it = dirtyUsers.entrySet().iterator();
        while (dirty > left && it.hasNext()) {
            Map.Entry<Long, UserRecords> user = it.next();
            it.remove();
            writeBack(user.getKey(), user.getValue());
        }
        reselect();
    }

    /** Writes back {@code records} of {@code user} with the keyed state on {@code user}. */
    private void writeBack(long user, UserRecords records) throws Exception {
        keys.select(user);
        if (records.inboxDirty) {
            inboxState.update(records.inbox);
            records.inboxDirty = false;
            dirty--;
        }
        writeConversations(records);
    }

    /** Writes {@code records}' dirty conversations, with the keyed state on their user. */
    private void writeConversations(UserRecords records) throws Exception {
        for (long id : records.dirtyConversations) {
            conversationState.put(id, records.conversations.get(id));
        }
        dirty -= records.dirtyConversations.size();
        records.dirtyConversations.clear();
    }

    /** Puts the keyed state back on the current user after writing others back. */
    private void reselect() throws Exception {
        if (keys != null && current != null) {
            keys.select(currentUser);
        }
    }

    private void evict() throws Exception {
        if (records <= maxRecords) {
            return;
        }
        boolean switched = false;
        var it = users.entrySet().iterator();
        while (records > maxRecords && it.hasNext()) {
            Map.Entry<Long, UserRecords> eldest = it.next();
            if (eldest.getValue() == current) {
                continue;
            }
            UserRecords evicted = eldest.getValue();
            if (evicted.isDirty()) {
                dirtyUsers.remove(eldest.getKey());
                writeBack(eldest.getKey(), evicted);
                switched = true;
            }
            records -= evicted.size();
            it.remove();
        }
        if (switched) {
            reselect();
        }
        if (records > maxRecords) {
            // The current user alone holds more than the cache: keep only their inbox.
            if (current.isDirty() && keys != null) {
                dirtyUsers.remove(currentUser);
                writeBack(currentUser, current);
            }
            records -= current.conversations.size();
            current.conversations.clear();
        }
    }
}
