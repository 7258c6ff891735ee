package io.argus.pipeline.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Debian's wrk (4.1) against one REST endpoint at a steady rate. Debian has no wrk2 (no {@code -R}), so the rate is
 * held by wrk's own Lua hook {@code delay()}: each connection waits {@code delayMs} before each request, which caps it
 * at connections x 1000 / (delayMs + latency) requests a second instead of as many as the machine allows (a closed
 * loop without pause would take a whole core of the two the app has). Reports what wrk printed.
 */
final class Wrk {
    record Result(double requestsPerSecond, long requests, double p50Ms, double p99Ms, double maxMs, long non2xx,
                  String socketErrors, String output) { }

    private final Process process;
    private final Path out;

    private Wrk(Process process, Path out) {
        this.process = process;
        this.out = out;
    }

    static boolean installed() {
        try {
            Process p = new ProcessBuilder("wrk", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            p.waitFor(10, TimeUnit.SECONDS);
            return true;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    /** Starts {@code wrk -t1 -c<connections> -d<seconds>s --latency} with the bearer token and the delay hook. */
    static Wrk start(String url, String token, int connections, int seconds, int delayMs, Path dir) throws IOException {
        Path script = dir.resolve("steady.lua");
        Files.writeString(script, "-- each connection pauses before each request: a steady rate, not a flood\n"
                + "function delay()\n  return " + delayMs + "\nend\n");
        Path out = dir.resolve("wrk.out");
        Process p = new ProcessBuilder("wrk", "-t1", "-c" + connections, "-d" + seconds + "s", "--timeout", "10s", "--latency",
                "-s", script.toString(), "-H", "Authorization: Bearer " + token, url)
                .redirectErrorStream(true).redirectOutput(out.toFile()).start();
        return new Wrk(p, out);
    }

    long pid() { return process.pid(); }

    Result await(long timeoutSeconds) throws Exception {
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("wrk did not finish within " + timeoutSeconds + " s");
        }
        String text = Files.readString(out);
        if (process.exitValue() != 0) throw new AssertionError("wrk failed (" + process.exitValue() + "):\n" + text);
        return parse(text);
    }

    static Result parse(String text) {
        double rps = number(text, "Requests/sec:\\s+([0-9.]+)");
        long requests = (long) number(text, "\\n\\s*([0-9]+) requests in");
        Matcher non2xx = Pattern.compile("Non-2xx or 3xx responses: ([0-9]+)").matcher(text);
        Matcher errors = Pattern.compile("Socket errors: ([^\\n]+)").matcher(text);
        return new Result(rps, requests, duration(text, "50%"), duration(text, "99%"), maxLatency(text),
                non2xx.find() ? Long.parseLong(non2xx.group(1)) : 0, errors.find() ? errors.group(1).strip() : "none", text);
    }

    private static double number(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        if (!m.find()) throw new AssertionError("wrk output lacks " + regex + ":\n" + text);
        return Double.parseDouble(m.group(1));
    }

    /** A line of the latency distribution ("  99%   12.34ms") in ms. */
    private static double duration(String text, String percentile) {
        Matcher m = Pattern.compile("\\s" + percentile + "\\s+([0-9.]+)(us|ms|s|m)\\b").matcher(text);
        if (!m.find()) throw new AssertionError("wrk output lacks the " + percentile + " line:\n" + text);
        return toMs(Double.parseDouble(m.group(1)), m.group(2));
    }

    /** The Max column of the thread stats' Latency line. */
    private static double maxLatency(String text) {
        Matcher m = Pattern.compile("Latency\\s+[0-9.]+\\w+\\s+[0-9.]+\\w+\\s+([0-9.]+)(us|ms|s|m)\\b").matcher(text);
        return m.find() ? toMs(Double.parseDouble(m.group(1)), m.group(2)) : Double.NaN;
    }

    private static double toMs(double v, String unit) {
        return switch (unit) {
            case "us" -> v / 1000;
            case "s" -> v * 1000;
            case "m" -> v * 60_000;
            default -> v;
        };
    }

    static List<String> summaryLines(Result r) {
        return r.output().lines().filter(l -> !l.isBlank()).toList();
    }
}
