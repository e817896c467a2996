import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.functions.FilterFunction;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple5;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.assigners.EventTimeSessionWindows;
import org.apache.flink.streaming.api.windowing.assigners.SlidingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

/**
 * Nexmark-shaped jobs on topics of {@link Arrivals}: QUERY RATE PARTITIONS WORK_MICROS FOLDER.
 * Every event costs WORK_MICROS of sleep in the vertex that does the query's work (a subtask's
 * capacity is 1e6 / WORK_MICROS events/s on any number of cores).
 * <ul>
 * <li>q1: bids -> convert (map) -> sink</li>
 * <li>q2: bids -> select (filter, keeps one auction in two) -> sink</li>
 * <li>q5: bids -> hot items (keyed by auction, sliding window of 10 s every 2 s, a count;
 *     3 bids in 10 go to 8 hot auctions) -> sink</li>
 * <li>q8: people, auctions -> join (person = seller, tumbling window of 10 s; each match
 *     costs the work) -> sink</li>
 * <li>q11: bids -> sessions (keyed by bidder, session window with a 2 s gap, a count) -> sink</li>
 * <li>qc: bids -> contended (map; half of each event's work under a lock every subtask of a
 *     TaskManager shares, as a shared cache or connection pool is) -> sink: its capacity grows
 *     less than in proportion to its subtasks, and stops growing</li>
 * </ul>
 * The topics' rate is FOLDER/schedule's (see {@link Arrivals}); checkpoints every second keep
 * the offsets across a rescale.
 */
public class NexmarkJob {
    static final TypeInformation<Tuple5<Long, Long, Long, Long, String>> EVENT =
        Types.TUPLE(Types.LONG, Types.LONG, Types.LONG, Types.LONG, Types.STRING);

    static void work(long micros) throws InterruptedException {
        Thread.sleep(micros / 1000, (int) (micros % 1000) * 1000);
    }

    public static class Convert implements MapFunction<Tuple5<Long, Long, Long, Long, String>,
            Tuple5<Long, Long, Long, Long, String>> {
        private final long micros;
        Convert(long micros) { this.micros = micros; }
        public Tuple5<Long, Long, Long, Long, String> map(Tuple5<Long, Long, Long, Long, String> bid)
                throws Exception {
            work(micros);
            return Tuple5.of(bid.f0, bid.f1, bid.f2, bid.f3 * 908 / 1000, bid.f4);  // to euros
        }
    }

    /** Half the work alone, half under a lock the TaskManager's subtasks share. */
    public static class Contended implements MapFunction<Tuple5<Long, Long, Long, Long, String>,
            Tuple5<Long, Long, Long, Long, String>> {
        private static final Object LOCK = new Object();
        private final long micros;
        Contended(long micros) { this.micros = micros; }
        public Tuple5<Long, Long, Long, Long, String> map(Tuple5<Long, Long, Long, Long, String> bid)
                throws Exception {
            work(micros / 2);
            synchronized (LOCK) { work(micros / 2); }
            return bid;
        }
    }

    public static class Select implements FilterFunction<Tuple5<Long, Long, Long, Long, String>> {
        private final long micros;
        Select(long micros) { this.micros = micros; }
        public boolean filter(Tuple5<Long, Long, Long, Long, String> bid) throws Exception {
            work(micros);
            return bid.f1 % 2 == 0;
        }
    }

    /** A count, with the work done per event added. */
    public static class Count implements AggregateFunction<Tuple5<Long, Long, Long, Long, String>, Long, Long> {
        private final long micros;
        Count(long micros) { this.micros = micros; }
        public Long createAccumulator() { return 0L; }
        public Long add(Tuple5<Long, Long, Long, Long, String> event, Long count) {
            try { work(micros); } catch (InterruptedException e) { Thread.currentThread().interrupt(); }
            return count + 1;
        }
        public Long getResult(Long count) { return count; }
        public Long merge(Long a, Long b) { return a + b; }
    }

    /**
     * A window join of people and auctions (f2: 0 a person, 1 an auction) on person = seller,
     * as Flink's own window join runs it (both inputs keyed into one window): every pair of a
     * person and an auction of one key and window is a match, and costs the work.
     */
    public static class Match extends ProcessWindowFunction<Tuple5<Long, Long, Long, Long, String>,
            Long, Long, TimeWindow> {
        private final long micros;
        Match(long micros) { this.micros = micros; }
        public void process(Long seller, Context context,
                            Iterable<Tuple5<Long, Long, Long, Long, String>> events, Collector<Long> out)
                throws Exception {
            List<Long> people = new ArrayList<>();
            List<Long> auctions = new ArrayList<>();
            for (Tuple5<Long, Long, Long, Long, String> e : events) { (e.f2 == 0 ? people : auctions).add(e.f0); }
            for (int p = 0; p < people.size(); p++) {
                for (Long auction : auctions) { work(micros); out.collect(auction); }
            }
        }
    }

    static DataStream<Tuple5<Long, Long, Long, Long, String>> topic(StreamExecutionEnvironment env,
            String name, String kind, double rate, int partitions, String folder) {
        TopicSource source = new TopicSource(name, new Arrivals(folder + "/" + name, partitions),
                                             new Events(kind, 3));
        WatermarkStrategy<Tuple5<Long, Long, Long, Long, String>> marks = WatermarkStrategy
            .<Tuple5<Long, Long, Long, Long, String>>forBoundedOutOfOrderness(Duration.ofSeconds(1))
            .withIdleness(Duration.ofSeconds(2));
        return env.fromSource(source, marks, name, EVENT).uid(name);
    }

    public static void main(String[] args) throws Exception {
        String query = args[0];
        double rate = Double.parseDouble(args[1]);
        int partitions = Integer.parseInt(args[2]);
        long micros = Long.parseLong(args[3]);
        String folder = args[4];
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.enableCheckpointing(1000);
        env.setMaxParallelism(24);
        DataStream<?> out;
        switch (query) {
            case "q1":
                out = topic(env, "bids", "bids", rate, partitions, folder)
                    .map(new Convert(micros)).name("convert").uid("convert").disableChaining();
                break;
            case "qc":
                out = topic(env, "bids", "bids", rate, partitions, folder)
                    .map(new Contended(micros)).name("contended").uid("contended").disableChaining();
                break;
            case "q2":
                out = topic(env, "bids", "bids", rate, partitions, folder)
                    .filter(new Select(micros)).name("select").uid("select").disableChaining();
                break;
            case "q5":
                out = topic(env, "bids", "bids", rate, partitions, folder)
                    .keyBy(bid -> bid.f1)
                    .window(SlidingEventTimeWindows.of(Duration.ofSeconds(10), Duration.ofSeconds(2)))
                    .aggregate(new Count(micros / 5)).name("hot items").uid("hot-items");
                break;
            case "q8":
                out = topic(env, "people", "people", rate, partitions, folder)
                    .union(topic(env, "auctions", "auctions", rate, partitions, folder))
                    .keyBy(event -> event.f1)
                    .window(TumblingEventTimeWindows.of(Duration.ofSeconds(10)))
                    .process(new Match(micros), Types.LONG).name("join").uid("join");
                break;
            case "q11":
                out = topic(env, "bids", "bids", rate, partitions, folder)
                    .keyBy(bid -> bid.f2)
                    .window(EventTimeSessionWindows.withGap(Duration.ofSeconds(2)))
                    .aggregate(new Count(micros)).name("sessions").uid("sessions");
                break;
            default:
                throw new IllegalArgumentException("no query " + query);
        }
        out.sinkTo(new DiscardingSink<>()).name("sink").uid("sink").disableChaining();
        env.execute("nexmark " + query);
    }
}
