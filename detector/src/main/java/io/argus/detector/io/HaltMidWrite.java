package io.argus.detector.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * A test's way to kill the JVM in the middle of one particular {@link AtomicFile} write, as a kill -9 or a power cut
 * would: with {@code -Dargus.test.haltMidWrite=<n>:<regex>} the n-th write (1-based) of a file whose name matches the
 * regex puts half its bytes in the temporary file, forces them to disk, prints {@code HALT mid-write of <file>} on
 * standard error and halts the JVM ({@link Runtime#halt}: no shutdown hooks, no finally blocks). Without the property
 * it does nothing (one null check per write). Kill tests use it to cut each file of a multi-file commit deliberately,
 * where a timed SIGKILL only lands in a given file by chance.
 */
final class HaltMidWrite {
    /** The status the JVM halts with: SIGKILL's 128 + 9, as a shell reports a killed process. */
    static final int STATUS = 137;
    private static final Pattern FILE;
    private static final int NTH;
    private static int matched;

    static {
        String spec = System.getProperty("argus.test.haltMidWrite");
        Pattern file = null;
        int nth = 0;
        if (spec != null && !spec.isBlank()) {
            int colon = spec.indexOf(':');
            if (colon < 1) {
                throw new IllegalArgumentException("-Dargus.test.haltMidWrite=" + spec + ": expected <n>:<file name "
                        + "regex>, e.g. 2:demo_ckpt\\d+\\.momentum");
            }
            nth = Integer.parseInt(spec.substring(0, colon).trim());
            file = Pattern.compile(spec.substring(colon + 1));
        }
        FILE = file;
        NTH = nth;
    }

    private HaltMidWrite() {}

    /**
     * Called by {@link AtomicFile} before it writes {@code bytes} for {@code file} into {@code tmp}; returns normally
     * unless this is the write to cut.
     */
    static void beforeWriting(Path file, FileChannel tmp, ByteBuffer bytes) throws IOException {
        if (FILE == null || !FILE.matcher(file.getFileName().toString()).matches()) return;
        synchronized (HaltMidWrite.class) {
            if (++matched != NTH) return;
        }
        ByteBuffer half = bytes.duplicate();
        half.limit(half.position() + half.remaining() / 2);
        while (half.hasRemaining()) tmp.write(half);
        tmp.force(true);
        System.err.println("HALT mid-write of " + file.getFileName() + " (" + bytes.remaining() / 2 + " of "
                + bytes.remaining() + " bytes)");
        System.err.flush();
        Runtime.getRuntime().halt(STATUS);
    }

    /** True when a write may be cut: {@link AtomicFile} then takes a stream's content whole first, to halve it. */
    static boolean armed() { return FILE != null; }
}
