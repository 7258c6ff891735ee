package io.argus.detector.onnx;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The class names an exporter writes in the model's metadata under {@code names}: Ultralytics (YOLOv5, YOLOv8,
 * YOLO11) writes Python's repr of its dict, {@code {0: 'person', 1: 'bicycle', ...}}, strings in single quotes or, when
 * a name holds a single quote, double quotes, with backslash escapes. JSON's {@code {"0": "person"}} reads too.
 */
public final class OnnxClassNames {
    private final String text;
    private int at;

    private OnnxClassNames(String text) {
        this.text = text;
    }

    /**
     * The names in class order. Throws IllegalArgumentException, saying where, for text that is not such a dict or
     * whose keys are not 0..n-1.
     */
    public static List<String> parse(String text) {
        return new OnnxClassNames(text).dict();
    }

    private List<String> dict() {
        expect('{');
        List<long[]> keys = new ArrayList<>();
        List<String> values = new ArrayList<>();
        skipSpaces();
        if (peek() == '}') at++;
        else {
            while (true) {
                skipSpaces();
                long key = peek() == '\'' || peek() == '"' ? Long.parseLong(quoted().strip()) : integer();
                skipSpaces();
                expect(':');
                skipSpaces();
                keys.add(new long[] {key});
                values.add(quoted());
                skipSpaces();
                char c = next();
                if (c == '}') break;
                if (c != ',') throw error("expected ',' or '}'");
            }
        }
        skipSpaces();
        if (at != text.length()) throw error("expected the end after '}'");
        String[] names = new String[values.size()];
        for (int i = 0; i < names.length; i++) {
            long k = keys.get(i)[0];
            if (k < 0 || k >= names.length || names[(int) k] != null) {
                throw new IllegalArgumentException("class indices must be 0.." + (names.length - 1) + " once each, found " + k);
            }
            names[(int) k] = values.get(i);
        }
        return List.copyOf(Arrays.asList(names));
    }

    private long integer() {
        int start = at;
        if (peek() == '-') at++;
        while (at < text.length() && Character.isDigit(text.charAt(at))) at++;
        if (at == start) throw error("expected a class index");
        return Long.parseLong(text.substring(start, at));
    }

    private String quoted() {
        char quote = next();
        if (quote != '\'' && quote != '"') throw error("expected a quoted name");
        StringBuilder s = new StringBuilder();
        while (true) {
            char c = next();
            if (c == quote) return s.toString();
            if (c == '\\') {
                char e = next();
                s.append(switch (e) {
                    case 'n' -> '\n';
                    case 't' -> '\t';
                    default -> e;
                });
            } else {
                s.append(c);
            }
        }
    }

    private void skipSpaces() {
        while (at < text.length() && Character.isWhitespace(text.charAt(at))) at++;
    }

    private char peek() { return at < text.length() ? text.charAt(at) : '\0'; }

    private char next() {
        if (at >= text.length()) throw error("unexpected end");
        return text.charAt(at++);
    }

    private void expect(char c) {
        if (next() != c) throw error("expected '" + c + "'");
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException(what + " at character " + at + " of " + text);
    }
}
