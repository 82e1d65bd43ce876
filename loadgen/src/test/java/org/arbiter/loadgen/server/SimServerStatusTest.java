package org.arbiter.loadgen.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.arbiter.loadgen.model.PowerModel;
import org.junit.jupiter.api.Test;

/** The admin API's {@code GET /status} document: its keys, their order and forms, as the {@link SimServer.Status} record writes them. */
final class SimServerStatusTest {

    @Test
    void status_writesTheDocumentedKeys_inOrder() throws Exception {
        assertThat(new ObjectMapper().writeValueAsString(
                new SimServer.Status(PowerModel.State.SHUTTING_DOWN, 3, 12, 0.75, 60.5, 1234.567, "none")))
                .isEqualTo("{\"state\":\"SHUTTING_DOWN\",\"inFlight\":3,\"completed\":12,\"cpuBusyFraction\":0.75,"
                        + "\"watts\":60.5,\"joules\":1234.567,\"fault\":\"none\"}");
    }

    @Test
    void adminStatus_isTheRecord() throws Exception {
        try (SimServer s = SimServer.start(SimServerOptions.defaults().withDemand(4, 0.01, 0))) {
            String body = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + s.adminPort() + "/status")).build(), HttpResponse.BodyHandlers.ofString()).body();
            assertThat(body).matches("\\{\"state\":\"ON\",\"inFlight\":0,\"completed\":0,\"cpuBusyFraction\":0\\.0,"
                    + "\"watts\":[0-9.]+,\"joules\":[0-9.]+,\"fault\":\"none\"}");
            assertThat(s.status().state()).isEqualTo(PowerModel.State.ON);
        }
    }
}
