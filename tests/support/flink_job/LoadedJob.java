import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiter;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * events (a source offering RATE records/s in all, of PAYLOAD bytes) -> work (WORK_MICROS of
 * sleep per record: a subtask's capacity is 1e6 / WORK_MICROS records/s, on any number of
 * cores) -> tally (keyed) -> sink. While the file FLAG exists, the source offers twice RATE.
 */
public class LoadedJob {
    private static final ScheduledExecutorService TIMER =
        Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "loaded-job-pace");
            t.setDaemon(true);
            return t;
        });

    /**
     * The rate a reader offers: its share of the total, lost while it is back-pressured (a
     * permit is never saved for later), so the source offers a steady load. Waiting for a
     * permit leaves the reader idle, not busy. Both acquire signatures: Flink 1.x calls the
     * first, 2.x the second.
     */
    public static class Pace implements RateLimiter {
        private final double perReader;
        private final String flag;
        private long next;
        private long checked;
        private boolean doubled;

        Pace(double perReader, String flag) { this.perReader = perReader; this.flag = flag; }

        public CompletionStage<Void> acquire() {
            long now = System.nanoTime();
            if (now - checked > 200_000_000L) {
                checked = now;
                doubled = !flag.isEmpty() && Files.exists(Paths.get(flag));
            }
            long period = (long) (1e9 / (doubled ? 2 * perReader : perReader));
            next = Math.max(next + period, now - 100_000_000L);
            long wait = next - now;
            if (wait <= 0) { return CompletableFuture.completedFuture(null); }
            CompletableFuture<Void> due = new CompletableFuture<>();
            TIMER.schedule(() -> due.complete(null), wait, TimeUnit.NANOSECONDS);
            return due;
        }

        public CompletionStage<Void> acquire(int records) { return acquire(); }
    }

    public static class PaceStrategy implements RateLimiterStrategy {
        private final double rate;
        private final String flag;

        PaceStrategy(double rate, String flag) { this.rate = rate; this.flag = flag; }

        public RateLimiter createRateLimiter(int parallelism) {
            return new Pace(rate / parallelism, flag);
        }
    }

    public static class Work implements MapFunction<String, String> {
        private final long micros;

        Work(long micros) { this.micros = micros; }

        @Override
        public String map(String value) throws Exception {
            Thread.sleep(micros / 1000, (int) (micros % 1000) * 1000);
            return value;
        }
    }

    @SuppressWarnings("unchecked")
    public static void main(String[] args) throws Exception {
        double rate = Double.parseDouble(args[0]);
        long workMicros = Long.parseLong(args[1]);
        int payload = Integer.parseInt(args[2]);
        String flag = args.length > 3 ? args[3] : "";
        String filler = "x".repeat(payload);
        DataGeneratorSource<String> events = new DataGeneratorSource<>(
            index -> index + filler.substring(Math.min(payload, Long.toString(index).length())),
            Long.MAX_VALUE, new PaceStrategy(rate, flag), Types.STRING);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.fromSource(events, WatermarkStrategy.noWatermarks(), "events").uid("events")
            .map(new Work(workMicros)).name("work").uid("work").disableChaining()
            .keyBy(v -> Math.floorMod(v.hashCode(), 64)).reduce((a, b) -> b)
            .name("tally").uid("tally")
            .sinkTo(new DiscardingSink<>()).name("sink").uid("sink").disableChaining();
        env.execute("loaded");
    }
}
