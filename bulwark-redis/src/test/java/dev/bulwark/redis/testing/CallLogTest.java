package dev.bulwark.redis.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The independent checks of the fleet tests, on logs whose answers are known. */
class CallLogTest {

    @TempDir
    Path directory;

    private CallLog log(String... workers) throws IOException {
        List<Path> files = new java.util.ArrayList<>();
        for (int i = 0; i < workers.length; i++) {
            Path file = directory.resolve("calls-" + i + ".log");
            Files.writeString(file, workers[i]);
            files.add(file);
        }
        return CallLog.read(files);
    }

    @Test
    void theSweepFindsTheMostRunningAtOnceAndTheTimeAboveTheLimit() throws IOException {
        // Worker 0 runs [0,100) and [100,200); worker 1 runs [50,150) and [120,130): three at once in [120,130).
        CallLog log = log("0 0 0 0 100 OK\n0 1 100 100 200 OK\n", "0 0 40 50 150 OK\n0 1 110 120 130 OK\n");

        CallLog.Excess atTwo = log.excess(2);
        assertThat(atTwo.maxInFlight()).isEqualTo(3);
        assertThat(atTwo.overLimit(2)).isEqualTo(1);
        assertThat(atTwo.microsAboveLimit()).isEqualTo(10);
        assertThat(atTwo.firstAbove()).isEqualTo(120);
        assertThat(atTwo.lastAbove()).isEqualTo(130);
        assertThat(atTwo.episodes()).isEqualTo(1);
        assertThat(log.excess(3).microsAboveLimit()).isZero();
        assertThat(log.excess(3).episodes()).isZero();
    }

    @Test
    void anEndAndAStartAtTheSameMicrosecondDoNotOverlap() throws IOException {
        CallLog log = log("0 0 0 0 100 OK\n0 1 100 100 200 OK\n");

        assertThat(log.excess(1).maxInFlight()).isEqualTo(1);
    }

    @Test
    void refusedCallsNeverCountAsRunning() throws IOException {
        CallLog log = log("0 0 0 0 100 OK\n0 1 10 -1 -1 UNAVAILABLE\n", "0 0 5 -1 -1 QUEUE_FULL\n");

        assertThat(log.excess(1).maxInFlight()).isEqualTo(1);
        assertThat(log.count("UNAVAILABLE")).isEqualTo(1);
        assertThat(log.count("OK")).isEqualTo(1);
    }

    @Test
    void aMissingOrRepeatedCallIsNoticed() throws IOException {
        assertThat(log("0 0 0 0 1 OK\n0 1 1 1 2 OK\n1 0 0 0 1 OK\n").eachCallOnceWithoutGaps()).isTrue();
        assertThat(log("0 0 0 0 1 OK\n0 2 1 1 2 OK\n").eachCallOnceWithoutGaps()).as("seq 1 missing").isFalse();
        assertThat(log("0 0 0 0 1 OK\n0 0 1 1 2 OK\n").eachCallOnceWithoutGaps()).as("seq 0 twice").isFalse();
    }

    @Test
    void aGrantOvertakenByALaterArrivalHasALag() throws IOException {
        // Asked at 0, 10, 20; granted in the order 10, 20, 0: the call that asked at 0 lags 20 behind.
        CallLog log = log("0 0 0 300 301 OK\n1 0 10 100 101 OK\n2 0 20 200 201 OK\n");

        assertThat(log.fifoLags()).containsExactly(0, 0, 20);
        assertThat(log("0 0 0 100 101 OK\n1 0 10 200 201 OK\n").fifoLags()).containsExactly(0, 0);
    }

    @Test
    void recoveryIsTheFirstStartOfACallAskedForAfterTheKill() throws IOException {
        CallLog log = log("0 0 0 10 20 OK\n0 1 500 -1 -1 UNAVAILABLE\n0 2 900 1500 1501 OK\n",
                "0 0 1000 1200 1201 OK\n");

        assertThat(log.firstStartAskedAfter(400)).isEqualTo(1200);
        assertThat(log.firstStartAskedAfter(2000)).isEqualTo(-1);
    }

    @Test
    void busyTimeIsTheInFlightCountIntegratedOverTheWindowOnly() throws IOException {
        // [0,100) and [50,150) and a refused call: 100 + 100 µs in all, 50 + 100 of them inside [50,200).
        CallLog log = log("0 0 0 0 100 OK\n0 1 0 -1 -1 QUEUE_FULL\n", "0 0 0 50 150 OK\n");

        assertThat(log.busyMicros(0, 1000)).isEqualTo(200);
        assertThat(log.busyMicros(50, 200)).isEqualTo(150);
        assertThat(log.busyMicros(300, 400)).isZero();
    }

    @Test
    void theLongestPauseCountsTheWindowEdgesAndCanBeTakenPerWorker() throws IOException {
        // Worker 0 starts calls at 10, 20 and 700; worker 1 at 300.
        CallLog log = log("0 0 0 10 11 OK\n0 1 0 20 21 OK\n0 2 0 700 701 OK\n0 3 0 -1 -1 QUEUE_FULL\n",
                "0 0 0 300 301 OK\n");

        assertThat(log.longestPause(0, 1000, -1)).isEqualTo(new CallLog.Pause(400, 700));
        assertThat(log.longestPause(0, 1000, 0)).isEqualTo(new CallLog.Pause(680, 700));
        assertThat(log.longestPause(0, 1000, 1)).isEqualTo(new CallLog.Pause(700, 1000));
        assertThat(log.longestPause(0, 5, 0)).isEqualTo(new CallLog.Pause(5, 5));
        assertThat(log.workers()).isEqualTo(2);
    }
}
