import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/** numbers -> pace (chained) -> counter (keyed) -> evens (unchained) -> sink (Sink V2). */
public class PacedJob {
    /** Emits at most `rate` records per second in each subtask. */
    public static class Pace implements MapFunction<Long, Long> {
        private final double rate;
        private transient long start;
        private transient long count;

        public Pace(double rate) { this.rate = rate; }

        @Override
        public Long map(Long value) throws Exception {
            if (count == 0) { start = System.nanoTime(); }
            count++;
            long due = start + (long) (count * 1e9 / rate);
            long wait = due - System.nanoTime();
            if (wait > 0) { Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000)); }
            return value;
        }
    }

    public static void main(String[] args) throws Exception {
        double rate = Double.parseDouble(args[0]);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.fromSequence(0, Long.MAX_VALUE).name("numbers").uid("numbers")
            .map(new Pace(rate)).name("pace").uid("pace")
            .keyBy(v -> v % 16).reduce((a, b) -> a + b).name("counter").uid("counter")
            .filter(v -> v % 2 == 0).name("evens").uid("evens").disableChaining()
            .sinkTo(new DiscardingSink<>()).name("sink").uid("sink").disableChaining();
        env.execute("paced");
    }
}
