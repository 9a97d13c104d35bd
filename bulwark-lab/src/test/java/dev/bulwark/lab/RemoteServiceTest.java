package dev.bulwark.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The lab's second HTTP service is a real server whose capacity is its worker pool: with more requests than
 * workers at once, every one is answered and no more than the workers are ever served at once. A second; runs in
 * the default build.
 */
class RemoteServiceTest {

    @Test
    void servesEveryRequestWithNoMoreAtOnceThanItsWorkers() throws Exception {
        try (RemoteService remote = RemoteService.start()) {
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            HttpRequest request = HttpRequest.newBuilder(remote.uri()).GET().build();
            List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
            for (int i = 0; i < 4 * RemoteService.WORKERS; i++) {
                answers.add(client.sendAsync(request, HttpResponse.BodyHandlers.ofString()));
            }
            for (CompletableFuture<HttpResponse<String>> answer : answers) {
                HttpResponse<String> response = answer.get(30, TimeUnit.SECONDS);
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(response.body()).matches("[0-9a-f]{16}");
            }
            assertThat(remote.peakServing()).isBetween(1, RemoteService.WORKERS);
        }
    }
}
