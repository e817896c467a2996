import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.tuple.Tuple5;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.metrics.MetricGroup;

/**
 * A FLIP-27 source reading a topic of {@link Arrivals}: one split per partition, its offset
 * kept in the checkpoints (a rescale resumes where the last checkpoint left it), and the
 * reader's {@code pendingRecords} (FLIP-33) the events that arrived and were not read. Each
 * partition's offset is reported as {@code KafkaSourceReader.topic.T.partition.P.currentOffset},
 * the names Flink's Kafka source uses, so that a reader of metrics counts the partitions as it
 * would for Kafka. Events are (id, key, other, value); {@link Events} makes them.
 */
public class TopicSource implements Source<Tuple5<Long, Long, Long, Long, String>,
        TopicSource.Partition, List<TopicSource.Partition>> {
    private static final ScheduledExecutorService TIMER =
        Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "topic-source-timer");
            t.setDaemon(true);
            return t;
        });

    private final String topic;
    private final Arrivals arrivals;
    private final Events events;

    public TopicSource(String topic, Arrivals arrivals, Events events) {
        this.topic = topic;
        this.arrivals = arrivals;
        this.events = events;
    }

    /** A partition and the offset of the next event to read (-1: the latest, when first read). */
    public static class Partition implements SourceSplit {
        final int id;
        long offset;

        Partition(int id, long offset) { this.id = id; this.offset = offset; }

        public String splitId() { return "p" + id; }
    }

    public Boundedness getBoundedness() { return Boundedness.CONTINUOUS_UNBOUNDED; }

    public SplitEnumerator<Partition, List<Partition>> createEnumerator(
            SplitEnumeratorContext<Partition> context) {
        List<Partition> all = new ArrayList<>();
        for (int p = 0; p < arrivals.partitions(); p++) { all.add(new Partition(p, 0)); }
        return new Assigner(context, all);
    }

    public SplitEnumerator<Partition, List<Partition>> restoreEnumerator(
            SplitEnumeratorContext<Partition> context, List<Partition> unassigned) {
        return new Assigner(context, unassigned);
    }

    public SimpleVersionedSerializer<Partition> getSplitSerializer() { return new PartitionSerializer(); }

    public SimpleVersionedSerializer<List<Partition>> getEnumeratorCheckpointSerializer() {
        return new ListSerializer();
    }

    public SourceReader<Tuple5<Long, Long, Long, Long, String>, Partition> createReader(
            SourceReaderContext context) {
        return new Reader(context);
    }

    /** Partition p goes to reader p mod parallelism, as it registers. */
    static class Assigner implements SplitEnumerator<Partition, List<Partition>> {
        private final SplitEnumeratorContext<Partition> context;
        private final List<Partition> unassigned;

        Assigner(SplitEnumeratorContext<Partition> context, List<Partition> unassigned) {
            this.context = context;
            this.unassigned = new ArrayList<>(unassigned);
        }

        public void start() {}

        public void handleSplitRequest(int subtask, String host) {}

        public void addSplitsBack(List<Partition> splits, int subtask) {
            unassigned.addAll(splits);
            for (int reader : context.registeredReaders().keySet()) { addReader(reader); }
        }

        public void addReader(int subtask) {
            int readers = context.currentParallelism();
            List<Partition> mine = new ArrayList<>();
            for (Partition p : new ArrayList<>(unassigned)) {
                if (p.id % readers == subtask) { mine.add(p); unassigned.remove(p); }
            }
            for (Partition p : mine) { context.assignSplit(p, subtask); }
        }

        public List<Partition> snapshotState(long checkpoint) { return new ArrayList<>(unassigned); }

        public void close() {}
    }

    class Reader implements SourceReader<Tuple5<Long, Long, Long, Long, String>, Partition> {
        private final SourceReaderContext context;
        private final List<Partition> splits = new ArrayList<>();
        private final Map<Integer, Boolean> reported = new HashMap<>();
        private CompletableFuture<Void> available = new CompletableFuture<>();

        Reader(SourceReaderContext context) { this.context = context; }

        public void start() {
            context.metricGroup().setPendingRecordsGauge(this::pending);
            wakeAfter(0);
        }

        private long pending() {
            long now = System.currentTimeMillis();
            long total = 0;
            synchronized (splits) {
                for (Partition p : splits) { total += Math.max(0, arrivals.arrived(now, p.id) - p.offset); }
            }
            return total;
        }

        public InputStatus pollNext(ReaderOutput<Tuple5<Long, Long, Long, Long, String>> output) {
            long now = System.currentTimeMillis();
            if (arrivals.held()) { return idle(200); }
            Partition next = null;
            long first = Long.MAX_VALUE;  // the earliest event not read, arrived or due
            synchronized (splits) {
                for (Partition p : splits) {
                    long at = arrivals.arrival(p.offset, p.id);
                    if (at < first) { first = at; next = p; }
                }
                if (next == null || next.offset >= arrivals.arrived(now, next.id)) {
                    return idle(next == null ? 200 : Math.max(1, first - now));
                }
                long offset = next.offset++;
                output.collect(events.make(next.id, offset, arrivals.partitions()), first);
            }
            return InputStatus.MORE_AVAILABLE;
        }

        private InputStatus idle(long millis) {
            available = new CompletableFuture<>();
            wakeAfter(millis);
            return InputStatus.NOTHING_AVAILABLE;
        }

        private void wakeAfter(long millis) {
            CompletableFuture<Void> future = available;
            TIMER.schedule(() -> future.complete(null), millis, TimeUnit.MILLISECONDS);
        }

        public List<Partition> snapshotState(long checkpoint) {
            List<Partition> out = new ArrayList<>();
            synchronized (splits) { for (Partition p : splits) { out.add(new Partition(p.id, p.offset)); } }
            return out;
        }

        public CompletableFuture<Void> isAvailable() { return available; }

        public void addSplits(List<Partition> added) {
            long now = System.currentTimeMillis();
            synchronized (splits) {
                for (Partition p : added) {
                    if (p.offset < 0) { p.offset = arrivals.arrived(now, p.id); }
                    splits.add(p);
                    if (reported.putIfAbsent(p.id, true) == null) {
                        MetricGroup group = context.metricGroup().addGroup("KafkaSourceReader")
                            .addGroup("topic", topic).addGroup("partition", Integer.toString(p.id));
                        group.gauge("currentOffset", () -> p.offset);
                    }
                }
            }
            available.complete(null);
        }

        public void notifyNoMoreSplits() {}

        public void close() {}
    }

    static class PartitionSerializer implements SimpleVersionedSerializer<Partition> {
        public int getVersion() { return 1; }

        public byte[] serialize(Partition p) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeInt(p.id);
            out.writeLong(p.offset);
            return bytes.toByteArray();
        }

        public Partition deserialize(int version, byte[] data) throws IOException {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
            return new Partition(in.readInt(), in.readLong());
        }
    }

    static class ListSerializer implements SimpleVersionedSerializer<List<Partition>> {
        public int getVersion() { return 1; }

        public byte[] serialize(List<Partition> list) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeInt(list.size());
            for (Partition p : list) { out.writeInt(p.id); out.writeLong(p.offset); }
            return bytes.toByteArray();
        }

        public List<Partition> deserialize(int version, byte[] data) throws IOException {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
            List<Partition> out = new ArrayList<>();
            for (int n = in.readInt(); n > 0; n--) { out.add(new Partition(in.readInt(), in.readLong())); }
            return out;
        }
    }
}
