package dev.unread.cli;

import dev.unread.ops.SavepointInspect;
import dev.unread.ops.SavepointRepublish;
import java.util.List;

/** {@code unread savepoint inspect|republish PATH}: the savepoint tools of dev.unread.ops. */
final class SavepointCommand {

    static final String NAME = "savepoint";

    private SavepointCommand() {}

    static String usage() {
        return SavepointInspect.usage() + SavepointRepublish.usage();
    }

    static int run(List<String> args, Unread.Session session) throws Exception {
        if (args.isEmpty()) {
            throw new UsageException("needs a tool: inspect or republish");
        }
        String[] rest = args.subList(1, args.size()).toArray(new String[0]);
        switch (args.get(0)) {
            case "inspect":
                return SavepointInspect.run(rest, session.env(), session.out(), session.err());
            case "republish":
                return SavepointRepublish.run(rest, session.env(), session.out(), session.err());
            default:
                throw new UsageException("unknown tool '" + args.get(0) + "': inspect or republish");
        }
    }
}
