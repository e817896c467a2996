import java.io.Serializable;

import org.apache.flink.api.java.tuple.Tuple5;

/**
 * Nexmark-shaped events as (id, key, other, value, payload), the same for a partition and offset on any
 * reader: a bid (id, auction, bidder, price), where HOT of every 10 bids go to one of 8 hot
 * auctions; a person (id, id, 0, 0); an auction (id, seller, 1, reserve), its seller one of
 * the PEOPLE most recent people.
 */
public class Events implements Serializable {
    public static final long AUCTIONS = 1000, PEOPLE = 200;
    /** Each event's payload: 500 B, so that a few network buffers hold seconds of events,
     * not minutes, and a job that cannot keep up is back-pressured at once, its backlog left
     * in the topic. */
    static final String PAD = "x".repeat(500);
    private final String kind;
    private final int hot;

    public Events(String kind, int hot) { this.kind = kind; this.hot = hot; }

    public Tuple5<Long, Long, Long, Long, String> make(int partition, long offset, int partitions) {
        long id = offset * partitions + partition;
        long mix = id * 0x9E3779B97F4A7C15L;
        long draw = (mix >>> 11) % 1000;
        switch (kind) {
            case "people":
                return Tuple5.of(id, id % PEOPLE, 0L, 0L, PAD);
            case "auctions":
                return Tuple5.of(id, (mix >>> 17) % PEOPLE, 1L, draw, PAD);
            default:
                long auction = draw % 10 < hot ? draw % 8 : 8 + (mix >>> 23) % (AUCTIONS - 8);
                return Tuple5.of(id, auction, (mix >>> 31) % PEOPLE, draw, PAD);
        }
    }
}
