package dev.bulwark.lab;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * The service's work on its second dependency, the {@link RemoteService}: one {@code GET} through the JDK's
 * {@code HttpClient} (HTTP/1.1, a connection per call in flight, kept alive between calls), answered by one of the
 * remote's workers.
 *
 * <p>Thread-safe: the client is shared, each call is its own exchange.
 */
@Component
class RemoteWork implements DependencyWork {

    /** The property that holds the remote's address (set by {@link LabApplication#start}). */
    static final String URI_PROPERTY = "lab.remote-uri";
    /**
     * How long the service waits for the remote's answer: twice the load generator's own timeout, so that without
     * a guard the generator gives up first, as a user's client would, while the service keeps waiting.
     */
    static final Duration TIMEOUT = LabExperiment.CLIENT_TIMEOUT.multipliedBy(2);

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(TIMEOUT).build();
    private final HttpRequest request;
    private final CallTimes times = new CallTimes();

    RemoteWork(@Value("${" + URI_PROPERTY + "}") String uri) {
        this.request = HttpRequest.newBuilder(URI.create(uri)).timeout(TIMEOUT).GET().build();
    }

    /**
     * Calls the remote once.
     *
     * @return the length of its answer
     * @throws IOException when the call fails, times out ({@link java.net.http.HttpTimeoutException}) or is not
     *     answered 200
     * @throws InterruptedException when the request's thread is interrupted while it waits
     */
    @Override
    public long serve() throws IOException, InterruptedException {
        long start = System.nanoTime();
        HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("the remote answered " + response.statusCode());
        }
        times.record(System.nanoTime() - start);
        return response.body().length();
    }

    /**
     * Returns the times of the calls answered 200, each from the request's start to its answer's end.
     *
     * @return running sums
     */
    @Override
    public CallTimes times() {
        return times;
    }
}
