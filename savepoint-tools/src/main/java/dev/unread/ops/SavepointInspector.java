package dev.unread.ops;

/**
 * {@link SavepointInspect#inspect} for a caller that reads many savepoints, one after another: the
 * batch cluster that reads them starts once, not once per savepoint (the benchmark reads one per
 * run of the job).
 */
public final class SavepointInspector implements AutoCloseable {

    private final BatchJobs jobs;

    private SavepointInspector(BatchJobs jobs) {
        this.jobs = jobs;
    }

    public static SavepointInspector start() throws Exception {
        return new SavepointInspector(BatchJobs.start());
    }

    /** What {@link SavepointInspect#inspect} gives for the savepoint at {@code path}. */
    public SavepointInspect.Summary inspect(String path, int top) throws Exception {
        return SavepointInspect.inspect(jobs, path, top);
    }

    @Override
    public void close() throws Exception {
        jobs.close();
    }
}
