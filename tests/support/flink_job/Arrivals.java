import java.io.IOException;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * The events that have reached a topic of PARTITIONS partitions by a moment, as a message
 * broker would hold them: the file SCHEDULE lists "epochMillis ratePerSecond" lines (the
 * rate over the whole topic from that moment on, appended as the rate changes), and every
 * partition receives an equal share. Any reader, on any subtask, after any restart, computes
 * the same offsets, so a consumer's lag is the broker's count less its own offset. While the
 * file HOLD exists the consumers read nothing (a paused source), and the backlog grows.
 * While the file STAGGERED exists partition p's events arrive p / PARTITIONS of a gap later
 * than partition 0's, as a paced producer writing to the partitions in turn would leave
 * them: the topic's events arrive evenly. Otherwise the partitions' events arrive together,
 * PARTITIONS at a time.
 */
public class Arrivals implements Serializable {
    private final String folder;
    private final int partitions;
    private transient long checked;
    private transient long stamp;
    private transient long[] starts;
    private transient double[] rates;
    private transient double[] before;  // events per partition before each segment
    private transient boolean held;
    private transient boolean staggered;

    public Arrivals(String folder, int partitions) {
        this.folder = folder;
        this.partitions = partitions;
    }

    public int partitions() { return partitions; }

    /** Re-read the schedule and the hold flag, at most every 200 ms. */
    private void refresh() {
        long now = System.currentTimeMillis();
        if (starts != null && now - checked < 200) { return; }
        checked = now;
        Path schedule = Paths.get(folder, "schedule");
        held = Files.exists(Paths.get(folder, "hold"));
        staggered = Files.exists(Paths.get(folder, "staggered"));
        try {
            long modified = Files.getLastModifiedTime(schedule).toMillis() ^ Files.size(schedule);
            if (starts != null && modified == stamp) { return; }
            List<long[]> rows = new ArrayList<>();
            for (String line : Files.readAllLines(schedule)) {
                String[] parts = line.trim().split("\\s+");
                if (parts.length == 2) {
                    rows.add(new long[] {Long.parseLong(parts[0]),
                                         Double.doubleToLongBits(Double.parseDouble(parts[1]))});
                }
            }
            long[] s = new long[rows.size()];
            double[] r = new double[rows.size()];
            double[] b = new double[rows.size()];
            for (int i = 0; i < s.length; i++) {
                s[i] = rows.get(i)[0];
                r[i] = Double.longBitsToDouble(rows.get(i)[1]) / partitions;
                b[i] = i == 0 ? 0 : b[i - 1] + r[i - 1] * (s[i] - s[i - 1]) / 1000.0;
            }
            starts = s; rates = r; before = b; stamp = modified;
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + schedule, e);
        }
    }

    public synchronized boolean held() { refresh(); return held; }

    /** Events partition ``partition`` has received by epochMillis ``at``. */
    public synchronized long arrived(long at, int partition) {
        refresh();
        int i = segment(at);
        if (i < 0) { return 0; }
        double count = before[i] + rates[i] * (at - starts[i]) / 1000.0 - shift(partition);
        return Math.max(0, (long) Math.floor(count));
    }

    /** The moment event ``offset`` of partition ``partition`` arrived (its event time). */
    public synchronized long arrival(long offset, int partition) {
        refresh();
        double count = offset + 1 + shift(partition);
        for (int i = starts.length - 1; i >= 0; i--) {
            if (before[i] < count || i == 0) {
                double rate = rates[i] > 0 ? rates[i] : 1e-9;
                return starts[i] + (long) Math.ceil((count - before[i]) * 1000.0 / rate);
            }
        }
        return starts[0];
    }

    /** How many events partition ``partition`` trails partition 0 by. */
    private double shift(int partition) {
        return staggered ? (double) partition / partitions : 0.0;
    }

    private int segment(long at) {
        for (int i = starts.length - 1; i >= 0; i--) {
            if (starts[i] <= at) { return i; }
        }
        return -1;
    }
}
