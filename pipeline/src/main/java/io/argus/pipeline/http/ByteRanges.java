package io.argus.pipeline.http;

import io.argus.pipeline.config.Names;
import io.vertx.ext.web.RoutingContext;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one byte range of a request's {@code Range} header ({@code bytes=first-last}, {@code bytes=first-},
 * {@code bytes=-n}), as a browser's video element asks for a file it plays: the same reading whether the file is
 * here or on another node of the cluster.
 */
final class ByteRanges {
    private static final Pattern RANGE = Pattern.compile("bytes=(\\d{0,18})-(\\d{0,18})");

    private ByteRanges() {}

    /**
     * {@code {first, last}} (inclusive) of the range {@code header} asks of a file of {@code size} bytes, or null after
     * answering 416: a malformed range, or one outside the file (its content-range then gives the size).
     */
    static long[] asked(RoutingContext rc, String header, long size, String what) {
        Matcher m = RANGE.matcher(header.trim());
        if (!m.matches() || (m.group(1).isEmpty() && m.group(2).isEmpty())) {
            JsonReplies.error(rc, 416, "range: expected bytes=<first>-<last>, found " + Names.quoted(header));
            return null;
        }
        long first;
        long last;
        if (m.group(1).isEmpty()) {   // the last n bytes
            long n = Long.parseLong(m.group(2));
            first = Math.max(0, size - n);
            last = size - 1;
        } else {
            first = Long.parseLong(m.group(1));
            last = m.group(2).isEmpty() ? size - 1 : Math.min(Long.parseLong(m.group(2)), size - 1);
        }
        if (first >= size || first > last) {
            rc.response().putHeader("content-range", "bytes */" + size);
            JsonReplies.error(rc, 416, "range " + first + "-" + last + " outside the " + size + " bytes of " + what);
            return null;
        }
        return new long[]{first, last};
    }
}
