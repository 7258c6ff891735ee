// A WebSocket client for scripts/fresh-machine-check.sh, run by the host's JDK as a single source file:
//   java WsProbe.java ws://127.0.0.1:8080/ws [TOKEN] [SECONDS]
// Subscribes to every camera, then exits 0 after the first "detections" message with at least one detection (printing its camera, model and boxes),
// 1 when none came within SECONDS. The token, when given, goes in the Authorization header.
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

public class WsProbe {
    public static void main(String[] args) throws Exception {
        String url = args[0];
        String token = args.length > 1 && !args[1].isBlank() ? args[1] : null;
        int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 60;
        CompletableFuture<String> firstDetections = new CompletableFuture<>();
        WebSocket.Listener listener = new WebSocket.Listener() {
            private final StringBuilder text = new StringBuilder();

            @Override
            public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
                text.append(data);
                if (last) {
                    String m = text.toString();
                    text.setLength(0);
                    // A detections message with a non-empty list: "type":"detections" ... "detections":[{
                    if (m.contains("\"type\":\"detections\"") && m.matches("(?s).*\"detections\":\\[\\{.*")) {
                        firstDetections.complete(m);
                    }
                }
                ws.request(1);
                return null;
            }

            @Override
            public CompletionStage<?> onClose(WebSocket ws, int status, String reason) {
                firstDetections.completeExceptionally(new IllegalStateException("closed: " + status + " " + reason));
                return null;
            }

            @Override
            public void onError(WebSocket ws, Throwable error) { firstDetections.completeExceptionally(error); }
        };
        long start = System.nanoTime();
        WebSocket.Builder b = HttpClient.newHttpClient().newWebSocketBuilder().connectTimeout(Duration.ofSeconds(10));
        if (token != null) b.header("Authorization", "Bearer " + token);
        WebSocket ws;
        try {
            ws = b.buildAsync(URI.create(url), listener).get(15, TimeUnit.SECONDS);
            ws.sendText("{\"type\": \"subscribe\"}", true); // every camera, every class (the gateway's protocol)
        } catch (Exception e) {
            System.out.println("WsProbe: cannot connect to " + url + ": " + e.getCause());
            System.exit(1);
            return;
        }
        try {
            String m = firstDetections.get(seconds, TimeUnit.SECONDS);
            System.out.printf("WsProbe: detections after %d ms: %s%n", (System.nanoTime() - start) / 1_000_000,
                    m.length() > 400 ? m.substring(0, 400) + "..." : m);
            ws.sendClose(WebSocket.NORMAL_CLOSURE, "done");
            System.exit(0);
        } catch (TimeoutException e) {
            System.out.println("WsProbe: no detections within " + seconds + " s");
            System.exit(1);
        } catch (Exception e) {
            System.out.println("WsProbe: " + e.getCause());
            System.exit(1);
        }
    }
}
