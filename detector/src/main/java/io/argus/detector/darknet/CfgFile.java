package io.argus.detector.darknet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a Darknet cfg into sections, with Darknet's lexical rules: all whitespace inside a line is removed,
 * lines starting with '#' or ';' are comments, '[name]' opens a section, everything else is key=value.
 */
public final class CfgFile {
    private CfgFile() {}

    public static List<CfgSection> read(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read cfg " + file + ": " + e.getMessage(), e);
        }
        return parse(file, text);
    }

    public static List<CfgSection> parse(Path file, String text) {
        List<CfgSection> sections = new ArrayList<>();
        CfgSection current = null;
        String[] lines = text.split("\r?\n|\r", -1);
        for (int i = 0; i < lines.length; i++) {
            int lineNo = i + 1;
            String line = stripAllWhitespace(lines[i]);
            if (line.isEmpty() || line.charAt(0) == '#' || line.charAt(0) == ';') continue;
            if (line.charAt(0) == '[') {
                if (!line.endsWith("]") || line.length() < 3) {
                    throw new CfgException(file, lineNo, "expected a section header like [convolutional], found '"
                            + lines[i].trim() + "'");
                }
                current = new CfgSection(file, line.substring(1, line.length() - 1).toLowerCase(), lineNo);
                sections.add(current);
                continue;
            }
            int eq = line.indexOf('=');
            if (eq <= 0) {
                throw new CfgException(file, lineNo, "expected key=value, found '" + lines[i].trim() + "'");
            }
            if (current == null) {
                throw new CfgException(file, lineNo, "option '" + line + "' before the first [section]");
            }
            current.put(line.substring(0, eq), line.substring(eq + 1), lineNo);
        }
        if (sections.isEmpty()) throw new CfgException(file, 0, "no sections found (expected [net] first)");
        return sections;
    }

    private static String stripAllWhitespace(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!Character.isWhitespace(c)) b.append(c);
        }
        return b.toString();
    }
}
